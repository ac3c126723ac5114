import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { readInvocationRequest, readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

let server: FakeLlm | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
});

const HOOKS = [
  'on_iteration_start',
  'pre_llm_request',
  'post_llm_response',
  'pre_tool_execution',
  'post_tool_execution',
  'on_iteration_end',
  'on_error',
  'on_run_end',
];

/** A hook that appends one line per run to hooks.log in the workspace: what fired, with its environment and inputs. */
const LOGGER = `#!/bin/sh
inputs=$(cd "$DELTA_HOOK_IO_PATH/input" && ls | sort | tr '\\n' ',')
echo "$DELTA_HOOK_NAME iter=$ITERATION_COUNT tool=\${TOOL_NAME:-} result=\${TOOL_RESULT:-} error=\${ERROR_MESSAGE:-} inputs=$inputs key=\${DELTA_API_KEY:-none} cwd=$(pwd) run=$DELTA_RUN_ID parent=$PPID" >> hooks.log
test -f "$JOURNAL_PATH" && test -d "$RUN_DIR" || echo "missing run paths" >> hooks.log
`;

async function agentWith(hooksYaml: string, files: Record<string, string> = {}) {
  const agent = await createTempAgent({
    agentYaml: {
      name: 'hooked',
      llm: { model: 'm', max_retries: 0 },
      tools: [
        { name: 'touch', description: 'Create a file', exec: 'touch ${path}' },
        { name: 'say', description: 'Print text', exec: 'echo ${text}' },
      ],
    },
    hooksYaml,
    files,
  });
  for (const name of Object.keys(files)) if (name.endsWith('.sh')) chmodSync(join(agent, name), 0o755);
  return agent;
}

async function run(agentDir: string, script: ScriptStep[]) {
  server = await startFakeLlm({ script });
  const workDir = join(await createTempDir('work-'), 'w');
  const result = await startRun({
    agent: loadAgent(agentDir),
    message: 'task',
    workDir,
    environment: { PATH: process.env.PATH, DELTA_API_KEY: 'sk-hooks-secret' },
    baseUrl: server.baseUrl,
  });
  return { result, workDir, journal: readJournal(result.paths.journal) };
}

describe('lifecycle hooks in a run', () => {
  it('fires all eight hooks the right number of times, in order, with their environment and inputs', async () => {
    const hooksYaml = HOOKS.map((name) => `${name}:\n  command: ['\${AGENT_HOME}/log.sh']\n`).join('');
    const agent = await agentWith(hooksYaml, { 'log.sh': LOGGER });
    const { result, workDir, journal } = await run(agent, [
      { tool_calls: [{ name: 'say', arguments: { text: 'hi' } }] },
      { error: { status: 500, message: 'model down', should_retry: false } },
    ]);
    expect(result.status).toBe('FAILED');
    const lines = readFileSync(join(workDir, 'hooks.log'), 'utf8').trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual([
      'on_iteration_start',
      'pre_llm_request',
      'post_llm_response',
      'pre_tool_execution',
      'post_tool_execution',
      'on_iteration_end',
      'on_iteration_start',
      'pre_llm_request',
      'on_error',
      'on_run_end',
    ]);
    expect(lines[0]).toMatch(/^on_iteration_start iter=1 tool= result= error= inputs=context\.json, key=none /);
    expect(lines[1]).toContain('inputs=context.json,proposed_payload.json,');
    expect(lines[2]).toContain('inputs=context.json,response.json,');
    expect(lines[3]).toContain('pre_tool_execution iter=1 tool=say result= ');
    expect(lines[3]).toContain('inputs=context.json,tool_call.json,');
    expect(lines[4]).toContain('post_tool_execution iter=1 tool=say result=hi ');
    expect(lines[4]).toContain('inputs=context.json,tool_call.json,tool_result.json,');
    expect(lines[6]).toContain('on_iteration_start iter=2');
    expect(lines[8]).toMatch(/^on_error iter=1 .*error=The model endpoint .* answered HTTP 500: .*model down/);
    expect(lines[8]).toContain('inputs=context.json,error.json,');
    for (const line of lines) {
      expect(line).toContain(`cwd=${workDir} run=${result.runId}`);
      expect(line).toContain('key=none');
      // Started by the engine's launcher, not by forking the engine (this process).
      expect(line).toMatch(/ parent=\d+$/);
      expect(line).not.toMatch(new RegExp(` parent=${process.pid}$`));
    }
    expect(readFileSync(join(workDir, 'hooks.log'), 'utf8')).not.toContain('missing run paths');

    const audits = journal.filter((event) => event.type === 'HOOK_EXECUTION_AUDIT');
    expect(audits.map((event) => event.type === 'HOOK_EXECUTION_AUDIT' && [event.hook_name, event.status, event.io_path_ref])).toEqual(
      lines.map((line, index) => [line.split(' ')[0], 'SUCCESS', `io/hooks/${String(index + 1).padStart(3, '0')}_${line.split(' ')[0]}/`]),
    );
    const firstHook = join(result.paths.hooksDir, '001_on_iteration_start');
    expect(readdirSync(firstHook).sort()).toEqual(['execution_meta', 'input', 'output']);
    expect(readdirSync(join(firstHook, 'execution_meta')).sort()).toEqual([
      'command.txt',
      'duration_ms.txt',
      'exit_code.txt',
      'stderr.log',
      'stdout.log',
    ]);
    const proposed = JSON.parse(readFileSync(join(result.paths.hooksDir, '002_pre_llm_request', 'input', 'proposed_payload.json'), 'utf8'));
    expect(proposed).toEqual(server!.requests[0]!.body);
  });

  it('sends the payload a pre_llm_request hook writes, and records it as sent', async () => {
    const rewrite = `#!/bin/sh
python3 - <<'PY'
import json, os
io = os.environ['DELTA_HOOK_IO_PATH']
payload = json.load(open(io + 'input/proposed_payload.json'))
payload['messages'].insert(0, {'role': 'system', 'content': 'INJECTED BY HOOK'})
payload['temperature'] = 0
json.dump(payload, open(io + 'output/final_payload.json', 'w'))
PY
`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const { result } = await run(agent, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    const sent = server!.requests[0]!.body as { messages: Array<{ content: string }>; temperature: number };
    expect(sent.messages[0]!.content).toBe('INJECTED BY HOOK');
    expect(sent.temperature).toBe(0);
    const [invocation] = readdirSync(result.paths.invocationsDir);
    expect(readInvocationRequest(result.paths, invocation!)).toBe(server!.requests[0]!.rawBody);
  });

  it('records every request exactly when a pre_llm_request hook rewrites earlier messages in one iteration', async () => {
    const rewrite = `#!/bin/sh
python3 - <<'PY'
import json, os
io = os.environ['DELTA_HOOK_IO_PATH']
payload = json.load(open(io + 'input/proposed_payload.json'))
if os.environ['ITERATION_COUNT'] == '2':
    payload['messages'][0]['content'] = 'REWRITTEN BY HOOK ' * 50
json.dump(payload, open(io + 'output/final_payload.json', 'w'))
PY
`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const say = (text: string): ScriptStep => ({ tool_calls: [{ name: 'say', arguments: { text } }] });
    const { result } = await run(agent, [say('one'), say('two'), say('three'), { content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    const invocations = readdirSync(result.paths.invocationsDir).sort();
    expect(invocations).toHaveLength(4);
    for (const [index, id] of invocations.entries()) expect(readInvocationRequest(result.paths, id)).toBe(server!.requests[index]!.rawBody);
    expect(server!.requests[1]!.rawBody).toContain('REWRITTEN BY HOOK');
    expect(server!.requests[2]!.rawBody).not.toContain('REWRITTEN BY HOOK');
    // The rewritten request shares less than half with the one before, so it is copied whole; later ones are deltas again.
    const kinds = invocations.map((id) => readdirSync(join(result.paths.invocationsDir, id)).find((name) => name.startsWith('request')));
    expect(kinds).toEqual(['request.json', 'request.json', 'request.delta.json', 'request.delta.json']);
  });

  it('falls back to the proposed payload with a SYSTEM_MESSAGE when the hook fails or writes junk', async () => {
    const junk = `#!/bin/sh\necho '{not json' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"\n`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/junk.sh']\n`, { 'junk.sh': junk });
    const { result, journal } = await run(agent, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect((server!.requests[0]!.body as { messages: Array<{ role: string }> }).messages[1]).toMatchObject({ role: 'user' });
    const warning = journal.find((event) => event.type === 'SYSTEM_MESSAGE');
    expect(warning).toMatchObject({ level: 'WARN' });
    expect(warning?.type === 'SYSTEM_MESSAGE' && warning.content).toMatch(
      /^pre_llm_request: .*final_payload\.json.*the unmodified payload is sent/,
    );
  });

  it("sends the payload a pre_llm_request hook writes to output/payload_override.dat, the spec's generic name", async () => {
    const rewrite = `#!/bin/sh
python3 - <<'PY'
import json, os
io = os.environ['DELTA_HOOK_IO_PATH']
payload = json.load(open(io + 'input/proposed_payload.json'))
payload['messages'].insert(0, {'role': 'system', 'content': 'FROM PAYLOAD OVERRIDE'})
json.dump(payload, open(io + 'output/payload_override.dat', 'w'))
PY
`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/rewrite.sh']\n`, { 'rewrite.sh': rewrite });
    const { result, journal } = await run(agent, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect((server!.requests[0]!.body as { messages: Array<{ content: string }> }).messages[0]!.content).toBe('FROM PAYLOAD OVERRIDE');
    expect(journal.filter((event) => event.type === 'SYSTEM_MESSAGE')).toEqual([]);
  });

  it('sends the proposed payload, saying why, when payload_override.dat is junk; final_payload.json wins over it', async () => {
    const junk = `#!/bin/sh\necho '{not json' > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"\n`;
    const agent = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/junk.sh']\n`, { 'junk.sh': junk });
    const { journal } = await run(agent, [{ content: 'done' }]);
    expect((server!.requests[0]!.body as { messages: Array<{ role: string }> }).messages[1]).toMatchObject({ role: 'user' });
    const warning = journal.find((event) => event.type === 'SYSTEM_MESSAGE');
    expect(warning?.type === 'SYSTEM_MESSAGE' && warning.content).toMatch(
      /^pre_llm_request: .*output\/payload_override\.dat.*the unmodified payload is sent/,
    );

    const both = `#!/bin/sh
echo '{"model": "m", "messages": [{"role": "user", "content": "FROM FINAL PAYLOAD"}]}' > "$DELTA_HOOK_IO_PATH/output/final_payload.json"
echo '{"model": "m", "messages": [{"role": "user", "content": "FROM OVERRIDE"}]}' > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"
`;
    await server!.close();
    const second = await agentWith(`pre_llm_request:\n  command: ['\${AGENT_HOME}/both.sh']\n`, { 'both.sh': both });
    const { result } = await run(second, [{ content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect(server!.requests[0]!.rawBody).toContain('FROM FINAL PAYLOAD');
    expect(server!.requests[0]!.rawBody).not.toContain('FROM OVERRIDE');
  });

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
    const { result, journal } = await run(agent, [
      { tool_calls: [{ name: 'say', arguments: { text: 'real output' } }] },
      { content: 'done' },
    ]);
    expect(result.status).toBe('COMPLETED');
    const observed = journal.find((event) => event.type === 'ACTION_RESULT');
    expect(observed?.type === 'ACTION_RESULT' && observed.observation_content).toContain('real output');
    expect(JSON.stringify(server!.requests.map((request) => request.body))).not.toContain('NOT FOR THE MODEL');
    expect(readFileSync(join(result.paths.runDir, 'engine.log'), 'utf8')).toContain(
      'hook post_tool_execution: output/observation.txt is a FIFO (named pipe), not a regular file; it is not read',
    );
  });

  it('blocks a tool with the pre_tool_execution gate: not run, marker absent, the model told why', async () => {
    const gate = `#!/bin/sh\necho '{"skip": true, "reason": "touching files is not allowed today"}' > "$DELTA_HOOK_IO_PATH/output/control.json"\n`;
    const agent = await agentWith(`pre_tool_execution:\n  command: ['\${AGENT_HOME}/gate.sh']\n`, { 'gate.sh': gate });
    const { result, workDir, journal } = await run(agent, [
      { tool_calls: [{ name: 'touch', arguments: { path: 'marker' } }] },
      { content: 'ok' },
    ]);
    expect(result.status).toBe('COMPLETED');
    expect(existsSync(join(workDir, 'marker'))).toBe(false);
    const toolMessage = (server!.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.find(
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
    const { result, journal } = await run(agent, [
      { tool_calls: [{ name: 'say', arguments: { text: 'password123' } }] },
      { content: 'ok' },
    ]);
    const toolMessage = (server!.requests[1]!.body as { messages: Array<{ role: string; content: string }> }).messages.find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toBe('REDACTED (11 bytes)');
    expect(readFileSync(join(result.paths.toolExecutionsDir, 'call_1_1', 'stdout.log'), 'utf8')).toBe('password123\n');
    expect(journal.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({
      observation_content: 'REDACTED (11 bytes)',
      observation_overridden_by: 'io/hooks/001_post_tool_execution/',
    });
  });

  it('accepts the legacy short hook names with a deprecation warning', async () => {
    const agent = await agentWith(
      `pre_tool_exec:\n  command: ['\${AGENT_HOME}/log.sh']\npost_tool_exec:\n  command: ['\${AGENT_HOME}/log.sh']\n`,
      { 'log.sh': LOGGER },
    );
    const loaded = loadAgent(agent);
    expect(loaded.warnings.map((warning) => warning.message).join('\n')).toMatch(/DEPRECATION WARNING.*pre_tool_exec.*pre_tool_execution/);
    const { workDir } = await run(agent, [{ tool_calls: [{ name: 'say', arguments: { text: 'x' } }] }, { content: 'ok' }]);
    expect(
      readFileSync(join(workDir, 'hooks.log'), 'utf8')
        .split('\n')
        .map((line) => line.split(' ')[0]),
    ).toEqual(['pre_tool_execution', 'post_tool_execution', '']);
  });
});
