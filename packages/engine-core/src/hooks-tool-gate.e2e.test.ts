import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTempDir } from '@delta/testkit';
import { cleanupTestResources } from '@delta/testkit';
import { agentWith, run } from './hooks.test-support.js';

afterEach(cleanupTestResources);

describe('lifecycle hooks in a run', () => {
  it('runs a tool with the arguments a gate wrote to payload_override.dat; a hook that cannot override is not obeyed', async () => {
    const rewrite = `#!/bin/sh\necho '{"path": "from-override"}' > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"\n`;
    const ignored = `#!/bin/sh\necho '{"path": "never"}' > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"\n`;
    const agent = await agentWith(
      `pre_tool_execution:\n  command: ['\${AGENT_HOME}/rewrite.sh']\non_iteration_start:\n  command: ['\${AGENT_HOME}/ignored.sh']\n`,
      { 'rewrite.sh': rewrite, 'ignored.sh': ignored },
    );
    const { result, workDir } = await run(agent, [{ tool_calls: [{ name: 'touch', arguments: { path: 'asked' } }] }, { content: 'ok' }]);
    expect(existsSync(join(workDir, 'from-override'))).toBe(true);
    expect(readFileSync(join(result.paths.runDir, 'engine.log'), 'utf8')).toContain(
      'hook on_iteration_start: output/payload_override.dat is ignored: the on_iteration_start hook cannot override anything',
    );
    expect(existsSync(join(workDir, 'asked'))).toBe(false);
    expect(existsSync(join(workDir, 'never'))).toBe(false);
  });

  it('reads no hook output through a FIFO or a link: the run goes on, the model sees the real observation, engine.log says why', async () => {
    const outside = join(await createTempDir('outside-'), 'secret.txt');
    writeFileSync(outside, 'NOT FOR THE MODEL');
    const planted = `#!/bin/sh\nmkfifo "$DELTA_HOOK_IO_PATH/output/observation.txt"\nln -s ${outside} "$DELTA_HOOK_IO_PATH/output/payload_override.dat"\n`;
    const agent = await agentWith(`post_tool_execution:\n  command: ['\${AGENT_HOME}/planted.sh']\n`, { 'planted.sh': planted });
    const { result, journal, server } = await run(agent, [
      { tool_calls: [{ name: 'say', arguments: { text: 'real output' } }] },
      { content: 'done' },
    ]);
    expect(result.status).toBe('COMPLETED');
    const observed = journal.find((event) => event.type === 'ACTION_RESULT');
    expect(observed?.type === 'ACTION_RESULT' && observed.observation_content).toContain('real output');
    expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain('NOT FOR THE MODEL');
    expect(readFileSync(join(result.paths.runDir, 'engine.log'), 'utf8')).toContain(
      'hook post_tool_execution: output/observation.txt is a FIFO (named pipe), not a regular file; it is not read',
    );
  });

  it('blocks a tool with the pre_tool_execution gate: not run, marker absent, the model told why', async () => {
    const gate = `#!/bin/sh\necho '{"skip": true, "reason": "touching files is not allowed today"}' > "$DELTA_HOOK_IO_PATH/output/control.json"\n`;
    const agent = await agentWith(`pre_tool_execution:\n  command: ['\${AGENT_HOME}/gate.sh']\n`, { 'gate.sh': gate });
    const { result, workDir, journal, server } = await run(agent, [
      { tool_calls: [{ name: 'touch', arguments: { path: 'marker' } }] },
      { content: 'ok' },
    ]);
    expect(result.status).toBe('COMPLETED');
    expect(existsSync(join(workDir, 'marker'))).toBe(false);
    const toolMessage = (server.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toBe('Blocked by the pre_tool_execution hook: touching files is not allowed today');
    expect(journal.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({
      status: 'ERROR',
      blocked_by: 'io/hooks/001_pre_tool_execution/',
    });
    expect(readdirSync(result.paths.toolExecutionsDir)).toEqual([]);
  });

  it('fails closed when the gate hook crashes or hangs', async () => {
    const crash = `#!/bin/sh\necho "gate exploded" >&2\nexit 3\n`;
    const hang = `#!/bin/sh\nsleep 30\n`;
    const agent = await agentWith(
      `pre_tool_execution:\n  command: ['\${AGENT_HOME}/crash.sh']\non_iteration_end:\n  command: ['\${AGENT_HOME}/hang.sh']\n  timeout_ms: 300\n`,
      { 'crash.sh': crash, 'hang.sh': hang },
    );
    const started = Date.now();
    const { result, workDir, journal } = await run(agent, [
      { tool_calls: [{ name: 'touch', arguments: { path: 'marker' } }] },
      { content: 'ok' },
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe('COMPLETED');
    expect(existsSync(join(workDir, 'marker'))).toBe(false);
    const blocked = journal.find((event) => event.type === 'ACTION_RESULT');
    expect(blocked?.type === 'ACTION_RESULT' && blocked.observation_content).toMatch(
      /^Blocked by the pre_tool_execution hook: .*3.*gate exploded/,
    );
    const audits = journal.filter((event) => event.type === 'HOOK_EXECUTION_AUDIT');
    expect(audits.map((event) => event.type === 'HOOK_EXECUTION_AUDIT' && [event.hook_name, event.status])).toEqual([
      ['pre_tool_execution', 'FAILED'],
      ['on_iteration_end', 'FAILED'],
      ['on_iteration_end', 'FAILED'],
    ]);
  });

  it('runs a tool with the arguments the gate rewrote, and says so in the journal', async () => {
    const rewrite = `#!/bin/sh\necho '{"path": "safe-name"}' > "$DELTA_HOOK_IO_PATH/output/tool_args.json"\n`;
    const agent = await agentWith(`pre_tool_execution:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const { workDir, journal } = await run(agent, [
      { tool_calls: [{ name: 'touch', arguments: { path: '../escape' } }] },
      { content: 'ok' },
    ]);
    expect(existsSync(join(workDir, 'safe-name'))).toBe(true);
    expect(existsSync(join(workDir, '..', 'escape'))).toBe(false);
    const note = journal.find((event) => event.type === 'SYSTEM_MESSAGE');
    expect(note?.type === 'SYSTEM_MESSAGE' && note.content).toContain('pre_tool_execution rewrote the arguments of touch');
  });

  it('lets post_tool_execution replace what the model sees, never the logs', async () => {
    const redact = `#!/bin/sh\nprintf 'REDACTED (%s bytes)' "$(printf %s "$TOOL_RESULT" | wc -c | tr -d ' ')" > "$DELTA_HOOK_IO_PATH/output/observation.txt"\n`;
    const agent = await agentWith(`post_tool_execution:\n  command: ['\${AGENT_HOME}/redact.sh']\n`, { 'redact.sh': redact });
    const { result, journal, server } = await run(agent, [
      { tool_calls: [{ name: 'say', arguments: { text: 'password123' } }] },
      { content: 'ok' },
    ]);
    const toolMessage = (server.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toBe('REDACTED (11 bytes)');
    expect(readFileSync(join(result.paths.toolExecutionsDir, 'call_1_1', 'stdout.log'), 'utf8')).toBe('password123\n');
    expect(journal.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({
      observation_content: 'REDACTED (11 bytes)',
      observation_overridden_by: 'io/hooks/001_post_tool_execution/',
    });
  });
});
