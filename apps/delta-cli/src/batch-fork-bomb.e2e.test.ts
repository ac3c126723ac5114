// Limits per run (issue 44 item 4): a bounded fork bomb in one run of a batch of eight, its process limit set
// by its task (and, likewise, a bounded memory hog held to its task's memory limit). As root the run's cgroup stops it (limits_hit: processes) and the other seven complete; as
// nobody, where no cgroup can be made, the batch says ONCE that the limit is not enforced, the bomb is bounded
// by itself, and the other seven complete all the same.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, type FakeLlm, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN, deltaEnv } from './test-support.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the fork bomb batch tests: ${noBubblewrap}.\n!!!!!!!!\n`);

/** Forks up to 1000 sleepers (bounded, so that it cannot take the machine even where nothing stops it), then counts what it got. */
const BOMB = 'i=0; while [ $i -lt 1000 ]; do sleep 10 & i=$((i+1)); done 2>/dev/null; echo forked';

/** Each run: one call of its task's script, then an answer (closed with the test's resources). */
function startModel(): Promise<FakeLlm> {
  return startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      if (messages.some((message) => message.role === 'tool')) return { content: 'done' };
      const script = messages.findLast((message) => message.role === 'user')!.content;
      return { tool_calls: [{ name: 'sh', arguments: { script } }] };
    },
  });
}

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

/** An agent with one tool, `sh`, in `base`. */
function writeAgent(base: string): string {
  const agent = join(base, 'agent');
  mkdirSync(agent, { mode: 0o755 });
  writeFileSync(
    join(agent, 'agent.yaml'),
    [
      'name: bomb',
      'llm: {model: fake-model, max_retries: 0}',
      'tools:',
      '  - {name: sh, description: run a script, exec: "sh -c ${script}", allow_option_values: true}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(agent, 'system_prompt.md'), 'Run the script you are given.\n');
  writeFileSync(
    join(agent, 'context.yaml'),
    'sources:\n  - {type: file, id: system_prompt, path: "${AGENT_HOME}/system_prompt.md"}\n  - {type: journal, id: conversation_history}\n',
  );
  return agent;
}

/** A directory outside /tmp (the sandbox's /tmp is its own) that anyone may write. */
function shared(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o777);
  dirs.push(dir);
  return dir;
}

describe.skipIf(noBubblewrap !== undefined)('a fork bomb in one run of a batch of eight (real bubblewrap, cgroups)', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: the other seven complete, and the bomb is held or said to be unheld`,
      async () => {
        const llm = await startModel();
        const base = shared('delta-fork-bomb-');
        const agent = writeAgent(base);
        const tasks = [
          ...Array.from({ length: 7 }, (_, index) => ({ id: `t${index + 1}`, message: `sleep 1; echo ok > done-${index + 1}.txt` })),
          { id: 'bomb', message: BOMB, limits: { processes: 64 } },
        ];
        writeFileSync(join(base, 'tasks.jsonl'), tasks.map((task) => `${JSON.stringify(task)}\n`).join(''));
        const out = join(base, 'out');
        const home = join(base, 'home');
        mkdirSync(home, { mode: 0o777 });
        chmodSync(home, 0o777);

        const args = ['batch', join(base, 'tasks.jsonl'), '--agent', agent, '--out', out, '--concurrency', '8'];
        const [file, ...rest] = [...identity.prefix, process.execPath, DELTA_BIN, ...args];
        const result = await runProcess(file!, rest, { env: deltaEnv({ ...modelEnv(llm), HOME: home }) });

        expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
        expect(result.stdout).toContain('8 runs: 8 completed, 0 failed');
        for (let index = 1; index <= 7; index += 1) {
          const run = join(out, `t${index}`, 'fake-model', '1');
          expect(readFileSync(join(run, `done-${index}.txt`), 'utf8')).toBe('ok\n');
          expect(JSON.parse(readFileSync(join(run, '.delta', 'run-1', 'metadata.json'), 'utf8')).status).toBe('COMPLETED');
        }
        const bombRun = join(out, 'bomb', 'fake-model', '1', '.delta', 'run-1');
        const metadata = JSON.parse(readFileSync(join(bombRun, 'metadata.json'), 'utf8'));
        const journal = readFileSync(join(bombRun, 'journal.jsonl'), 'utf8');
        const limits = readFileSync(join(out, '.batch', 'limits.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line));
        const warnings = result.stderr.split('\n').filter((line) => line.includes('NOT enforced'));
        if (identity.name === 'root') {
          expect(limits).toEqual([{ limit: 'processes', enforced: true, by: 'cgroup v1', tasks: ['bomb'], models: ['fake-model'] }]);
          expect(warnings).toEqual([]);
          expect(metadata.limits_hit).toEqual(['processes']);
          expect(journal).toContain(
            'Note: the run reached its process limit (64 processes and threads at once): a new process was refused.',
          );
        } else {
          expect(limits).toEqual([
            {
              limit: 'processes',
              enforced: false,
              reason: expect.stringContaining('cgroup v1: EACCES'),
              tasks: ['bomb'],
              models: ['fake-model'],
            },
          ]);
          // Once for the batch, naming the limit, the task and why; not once per run.
          expect(warnings).toEqual([
            expect.stringMatching(
              /^warning: the processes limit is NOT enforced for the runs of task bomb: cgroup v1: EACCES .*Run as root, or in a cgroup delegated to you/,
            ),
          ]);
          expect(metadata.limits_hit).toBeUndefined();
          expect(journal).toContain('"observation_content":"forked"');
        }
      },
      180_000,
    );

    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: a memory hog is held to its task's memory limit, or said to be unheld, and the run beside it completes`,
      async () => {
        const llm = await startModel();
        const base = shared('delta-memory-hog-');
        const agent = writeAgent(base);
        const tasks = [
          { id: 'plain', message: 'sleep 1; echo ok > done.txt' },
          // 200 MB held at once (tail keeps a stream with no newline whole): bounded, even where nothing stops it.
          { id: 'hog', message: 'head -c 200000000 /dev/zero | tail > /dev/null; echo "status $?"', limits: { memory: 64 * 1024 * 1024 } },
        ];
        writeFileSync(join(base, 'tasks.jsonl'), tasks.map((task) => `${JSON.stringify(task)}\n`).join(''));
        const out = join(base, 'out');
        const args = ['batch', join(base, 'tasks.jsonl'), '--agent', agent, '--out', out, '--concurrency', '2'];
        const [file, ...rest] = [...identity.prefix, process.execPath, DELTA_BIN, ...args];
        const result = await runProcess(file!, rest, { env: deltaEnv({ ...modelEnv(llm), HOME: base }) });

        expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(0);
        expect(readFileSync(join(out, 'plain', 'fake-model', '1', 'done.txt'), 'utf8')).toBe('ok\n');
        const hogRun = join(out, 'hog', 'fake-model', '1', '.delta', 'run-1');
        const metadata = JSON.parse(readFileSync(join(hogRun, 'metadata.json'), 'utf8'));
        const journal = readFileSync(join(hogRun, 'journal.jsonl'), 'utf8');
        const warnings = result.stderr.split('\n').filter((line) => line.includes('NOT enforced'));
        expect(metadata.status).toBe('COMPLETED');
        if (identity.name === 'root') {
          expect(warnings).toEqual([]);
          expect(metadata.limits_hit).toEqual(['memory']);
          expect(journal).toMatch(
            /"observation_content":"status (137|1)\\n.*Note: the run reached its memory limit \(64 MiB for all its processes\): the kernel killed a process\."/,
          );
        } else {
          expect(warnings).toEqual([
            expect.stringMatching(/^warning: the memory limit is NOT enforced for the runs of task hog: cgroup v1: EACCES /),
          ]);
          expect(metadata.limits_hit).toBeUndefined();
          expect(journal).toContain('"observation_content":"status 0"');
        }
      },
      180_000,
    );
  }
});
