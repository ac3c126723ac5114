// A hook that writes JSON nested 100000 levels deep (as a hook passing on what a tool gave it might). The
// run used to end FAILED with a bare "Maximum call stack size exceeded" when it wrote the journal or the
// request; now the file is not read, engine.log says why, and the run goes on as if the hook had written none.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { agentWith, run } from './hooks.test-support.js';

afterEach(cleanupTestResources);

/** A hook that writes `before`, then `{"a":` 100000 times, 1 and the braces, then `after`, to output/<file>. */
function deepWriter(file: string, before: string, after: string): Record<string, string> {
  const write = `process.stdout.write(${JSON.stringify(before)} + '{"a":'.repeat(1e5) + '1' + '}'.repeat(1e5) + ${JSON.stringify(after)});\n`;
  const hook = `#!/bin/sh\n"${process.execPath}" "$(dirname "$0")/deep.mjs" > "$DELTA_HOOK_IO_PATH/output/${file}"\n`;
  return { 'deep.sh': hook, 'deep.mjs': write };
}

async function runWithHook(hook: string, files: Record<string, string>) {
  const agent = await agentWith(`${hook}:\n  command: ['sh', '\${AGENT_HOME}/deep.sh']\n`, files);
  const ran = await run(agent, [{ tool_calls: [{ name: 'touch', arguments: { path: 'marker' } }] }, { content: 'done' }]);
  return { ...ran, log: readFileSync(join(ran.result.paths.runDir, 'engine.log'), 'utf8') };
}

describe('a hook output nested 100000 levels deep', () => {
  it('tool_args.json: not read, so the gate fails closed: the tool does not run, the model is told, the run completes', async () => {
    const { result, workDir, log } = await runWithHook('pre_tool_execution', deepWriter('tool_args.json', '{"path":', '}'));
    expect(result.status).toBe('COMPLETED');
    expect(existsSync(join(workDir, 'marker'))).toBe(false);
    const problem = 'output/tool_args.json nests more than 256 levels deep; it is not read';
    expect(log).toContain(`hook pre_tool_execution: ${problem}`);
    const blocked = readJournal(result.paths.journal).find((event) => event.type === 'ACTION_RESULT');
    expect(blocked?.type === 'ACTION_RESULT' && blocked.observation_content).toContain(problem);
  });

  it('final_payload.json: not read, so the proposed request is sent, and the run completes', async () => {
    const payload = deepWriter('final_payload.json', '{"model":"m","messages":[{"role":"user","content":"x","extra":', '}]}');
    const { result, log, server } = await runWithHook('pre_llm_request', payload);
    expect(result.status).toBe('COMPLETED');
    expect(log).toContain('hook pre_llm_request: output/final_payload.json nests more than 256 levels deep; it is not read');
    expect(server.requests[0]!.body.messages).toEqual(expect.arrayContaining([{ role: 'user', content: 'task' }]));
  });
});
