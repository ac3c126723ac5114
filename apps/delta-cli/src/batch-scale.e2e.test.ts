import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal, runPaths } from '@delta/journal';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { runDelta } from './test-support.js';

// Hundreds of sandboxed runs on one machine (issue 34): 128 runs of a tiny agent at once, each in its own
// bubblewrap, against a model that answers after 2 s. Every run completes with a clean journal, and no
// process of theirs outlives the batch, not even the background process each run's tool leaves behind.

const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
if (!probe.ok && unavailable) {
  console.warn(`\n!!!!!!!!\n!!! SKIPPING the 128 sandboxed runs test: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`);
}

const RUNS = 128;
// A number no other process of the machine sleeps for: the leftover of each run's tool.
const LEFTOVER = 'sleep 313.25';

afterEach(cleanupTestResources);

function commandLines(): Array<{ pid: number; argv: string }> {
  const found = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      found.push({ pid: Number(entry), argv: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // Gone since the listing.
    }
  }
  return found;
}

describe.skipIf(!probe.ok && unavailable !== undefined)('128 sandboxed runs at once (real bubblewrap)', () => {
  it('all COMPLETE with clean journals, and no process of theirs outlives the batch', { timeout: 300_000 }, async () => {
    const server = await startFakeLlm({
      script: (request) => {
        const messages = (request.body as { messages: Array<{ role: string }> }).messages;
        if (messages.some((message) => message.role === 'tool')) return { content: 'done', delay_ms: 2000 };
        return { tool_calls: [{ name: 'note', arguments: { text: 'one' } }], delay_ms: 2000 };
      },
    });
    const agent = await createTempAgent({
      agentYaml: {
        name: 'tiny',
        llm: { model: 'm', max_retries: 0 },
        ask_human: false,
        tools: [
          {
            name: 'note',
            description: 'Note a line, leaving a process behind',
            shell: `printf '%s\\n' \${text} >> notes.txt; ${LEFTOVER} >/dev/null 2>&1 & echo noted`,
          },
        ],
      },
    });
    const directory = await createTempDir('scale-');
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(
      tasksFile,
      Array.from({ length: RUNS }, (_, index) => `${JSON.stringify({ id: `t${index}`, message: `do ${index}` })}\n`).join(''),
    );
    const out = join(directory, 'out');
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--concurrency', String(RUNS)], {
      env: modelEnv(server),
    });
    expect(result.stderr).not.toContain('MaxListenersExceededWarning');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${RUNS} runs: ${RUNS} completed, 0 failed`);
    expect(server.requests).toHaveLength(RUNS * 2);

    for (let index = 0; index < RUNS; index += 1) {
      const workDir = join(out, `t${index}`, 'm', '1');
      const events = readJournal(runPaths(workDir, 'run-1').journal);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, at) => at + 1));
      expect(events.filter((event) => event.type === 'ENGINE_START')).toHaveLength(1);
      expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
      expect(events.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({ status: 'SUCCESS', observation_content: 'noted' });
      expect(events.some((event) => event.type === 'ERROR')).toBe(false);
      expect(readFileSync(join(workDir, 'notes.txt'), 'utf8')).toBe('one\n');
    }
    // Each run's sandbox (a PID namespace) ended with it: its leftover, its bubblewrap and its launcher with it.
    await expect
      .poll(() => !commandLines().some(({ argv }) => argv.includes(LEFTOVER) || argv.includes(out)), {
        timeout: 30_000,
        interval: 50,
        message: 'every process of the batch to be gone',
      })
      .toBe(true);
  });
});
