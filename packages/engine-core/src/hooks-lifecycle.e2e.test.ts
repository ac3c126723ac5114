import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadAgent } from './index.js';
import { HOOK_NAMES } from '@delta/hooks';
import { cleanupTestResources } from '@delta/testkit';
import { agentWith, run } from './hooks.test-support.js';

afterEach(cleanupTestResources);

/** A hook that appends one line per run to hooks.log in the workspace: what fired, with its environment and inputs. */
const LOGGER = `#!/bin/sh
inputs=$(cd "$DELTA_HOOK_IO_PATH/input" && ls | sort | tr '\\n' ',')
echo "$DELTA_HOOK_NAME iter=$ITERATION_COUNT tool=\${TOOL_NAME:-} result=\${TOOL_RESULT:-} error=\${ERROR_MESSAGE:-} inputs=$inputs key=\${DELTA_API_KEY:-none} cwd=$(pwd) run=$DELTA_RUN_ID parent=$PPID" >> hooks.log
test -f "$JOURNAL_PATH" && test -d "$RUN_DIR" || echo "missing run paths" >> hooks.log
`;

describe('lifecycle hooks in a run', () => {
  it('fires all eight hooks the right number of times, in order, with their environment and inputs', async () => {
    const hooksYaml = HOOK_NAMES.map((name) => `${name}:\n  command: ['\${AGENT_HOME}/log.sh']\n`).join('');
    const agent = await agentWith(hooksYaml, { 'log.sh': LOGGER });
    const { result, workDir, journal, server } = await run(agent, [
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
    expect(lines[0]).toMatch(/^on_iteration_start iter=1 tool= result= error= inputs=context\.json,payload\.dat, key=none /);
    expect(lines[1]).toContain('inputs=context.json,payload.dat,proposed_payload.json,');
    expect(lines[2]).toContain('inputs=context.json,payload.dat,response.json,');
    expect(lines[3]).toContain('pre_tool_execution iter=1 tool=say result= ');
    expect(lines[3]).toContain('inputs=context.json,payload.dat,tool_call.json,');
    expect(lines[4]).toContain('post_tool_execution iter=1 tool=say result=hi ');
    expect(lines[4]).toContain('inputs=context.json,payload.dat,tool_call.json,tool_result.json,');
    expect(lines[6]).toContain('on_iteration_start iter=2');
    expect(lines[8]).toMatch(/^on_error iter=1 .*error=The model endpoint .* answered HTTP 500: .*model down/);
    expect(lines[8]).toContain('inputs=context.json,error.json,payload.dat,');
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
    expect(proposed).toEqual(server.requests[0]!.body);
    // payload.dat is what each hook may override, in the override's format (issue 46, item 16).
    const payload = (dir: string) => readFileSync(join(result.paths.hooksDir, dir, 'input', 'payload.dat'), 'utf8');
    expect(JSON.parse(payload('002_pre_llm_request'))).toEqual(server.requests[0]!.body);
    expect(JSON.parse(payload('004_pre_tool_execution'))).toEqual({ text: 'hi' });
    expect(payload('005_post_tool_execution')).toBe('hi');
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
