import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { runDelta } from './test-support.js';

// delta show action and delta log for calls that are not one plain execution: an id the model used again
// after a delta continue, and a call a pre_tool_execution hook blocked.

interface Message {
  role: string;
  content?: unknown;
}
type Request = { body: { messages?: Message[] } };

afterEach(cleanupTestResources);

function script(request: Request) {
  const messages = request.body.messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { content: 'done' };
  const task = String(messages.at(-1)?.content);
  return { tool_calls: [{ id: task === 'third' ? 'call_blocked' : 'call_same', name: 'touch_it', arguments: {} }] };
}

describe('delta show action and delta log', () => {
  it('refuse an id that names two executions with the choices, and show a blocked call as blocked', async () => {
    const server = await startFakeLlm({ script });
    const agent = await createTempAgent({
      agentYaml: {
        name: 'shows',
        llm: { model: 'm', max_retries: 0 },
        tools: [{ name: 'touch_it', description: 'Leave a mark', shell: 'echo mark >> marks' }],
      },
      // The gate refuses every call once the workspace has a file named "block".
      hooksYaml: { pre_tool_execution: { command: ['sh', '-c', 'if [ -e block ]; then echo "blocked by policy" >&2; exit 1; fi'] } },
    });
    const work = join(await createTempDir('show-'), 'w');
    const env = modelEnv(server);
    expect((await runDelta(['run', '--agent', agent, '-w', work, '-m', 'first'], { env })).exitCode).toBe(0);
    expect((await runDelta(['continue', '-w', work, '-m', 'second'], { env })).exitCode).toBe(0);

    const ambiguous = await runDelta(['show', 'action', 'call_same', '-w', work], { env });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toMatch(
      /The id "call_same" names 2 tool executions in run \S+: the model used it again after a delta continue\./,
    );
    expect(ambiguous.stderr).toContain('Give its number instead: 1 (iteration 1) or 2 (iteration 3).');
    const second = await runDelta(['show', 'action', '2', '-w', work], { env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain('== action call_same (touch_it, iteration 3)');

    writeFileSync(join(work, 'block'), '');
    expect((await runDelta(['continue', '-w', work, '-m', 'third'], { env })).exitCode).toBe(0);
    const blocked = await runDelta(['show', 'action', 'call_blocked', '-w', work], { env });
    expect(blocked.exitCode).toBe(0);
    expect(blocked.stdout).toMatch(
      /^== action call_blocked \(touch_it, iteration 5\)\nBLOCKED: it did not run; the pre_tool_execution hook refused it \(\S+\)\n== what the model was told\n/,
    );
    const log = await runDelta(['log', '-w', work], { env });
    expect(log.stdout).toMatch(/touch_it ERROR BLOCKED by a hook: it did not run \(\S+\) \[call_blocked\]/);
    expect(log.stdout).toContain('[call_same-2]');
  });
});
