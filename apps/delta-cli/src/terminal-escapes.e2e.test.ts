import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { DELTA_BIN, deltaEnv, runDelta } from './test-support.js';

// A tool's output and a model's answer with terminal escape sequences (write the clipboard, clear the screen,
// move the cursor, retitle the window): what delta shows a person on a terminal shows them, never obeys them;
// piped, a tool's output and `--format raw` keep their exact bytes.

afterEach(cleanupTestResources);

const TOOL = "printf 'ok\\033]52;c;ZWNobyBwd25lZAo=\\007\\033[2J\\033[1;1HALL TESTS PASSED\\n'";
const ANSWER = 'done \u001b]0;owned-title\u0007 \u001b[2J';
// The escape and bell characters: what a terminal obeys.
const OBEYED = /[\u001b\u0007]/;

/** `delta ARGS` on a terminal (a pseudo-terminal of `script`), without colours: what it printed there. */
async function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const command = [process.execPath, DELTA_BIN, ...args].map((word) => `'${word}'`).join(' ');
  const result = await runProcess('script', ['-qec', command, '/dev/null'], { env: { ...deltaEnv(env), NO_COLOR: '1' } });
  expect(result.exitCode, result.stdout).toBe(0);
  return result.stdout;
}

describe('escape sequences from a tool or a model', () => {
  it('are shown, not obeyed, by delta log, show action and the answer on a terminal; piped output keeps the bytes', async () => {
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'shout', arguments: {} }] }, { content: ANSWER }] });
    const agent = await createTempAgent({
      agentYaml: { name: 'escapes', llm: { model: 'm', max_retries: 0 }, tools: [{ name: 'shout', description: 'x', shell: TOOL }] },
    });
    const work = join(await createTempDir('escapes-'), 'w');
    const env = modelEnv(server);
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'go', '--format', 'raw'], { env });
    expect(run.exitCode, run.stderr).toBe(0);
    // Piped, --format raw: the answer's exact bytes.
    expect(run.stdout).toBe(ANSWER);

    const log = await runDelta(['log', '-w', work], { env });
    expect(log.exitCode).toBe(0);
    expect(log.stdout).not.toMatch(OBEYED);
    expect(log.stdout).toContain('ok\\u001b]52;c;ZWNobyBwd25lZAo=\\u0007\\u001b[2J\\u001b[1;1HALL TESTS PASSED');
    expect(log.stdout).toContain('done \\u001b]0;owned-title\\u0007 \\u001b[2J');

    // Piped, a tool's output is its bytes; on a terminal, its control characters are shown.
    const piped = await runDelta(['show', 'action', '1', '-w', work], { env });
    expect(piped.stdout).toContain('ok\u001b]52;c;ZWNobyBwd25lZAo=\u0007');
    const shown = await onTerminal(['show', 'action', '1', '-w', work], env);
    expect(shown).not.toMatch(OBEYED);
    expect(shown).toContain('ok\\u001b]52;c;ZWNobyBwd25lZAo=\\u0007\\u001b[2J');

    // The answer of a run on a terminal (and its live display, on the same terminal).
    const again = await startFakeLlm({ script: [{ content: ANSWER }] });
    const answer = await onTerminal(['run', '--agent', agent, '-w', join(work, '..', 'w2'), '-m', 'go'], modelEnv(again));
    // The live display's own sequence (clear the line it redraws) aside.
    expect(answer.replaceAll('\u001b[2K', '')).not.toMatch(OBEYED);
    expect(answer).toContain('done \\u001b]0;owned-title\\u0007 \\u001b[2J');
  }, 60_000);
});
