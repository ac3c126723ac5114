// Pairs of real processes race for one run's lock, again and again: on a fresh lock, on a lock whose
// holder has died, and on one whose pid now belongs to another process. Each winner checks, while it
// holds the lock, that nobody else believes they hold it too. DELTA_TEST_LOCK_ROUNDS sets the number of
// racing pairs (300 by default; the acceptance run uses 2,000 or more).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { processStartTicks } from '@delta/process-identity';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROUNDS = Number(process.env.DELTA_TEST_LOCK_ROUNDS ?? 300);
/** Each pair of processes races this many times, then a new pair takes over. */
const ROUNDS_PER_PAIR = 50;

const sourceDir = fileURLToPath(new URL('.', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'delta-lock-stress-'));
let bundle: string;

beforeAll(async () => {
  // The contenders run the real run-lock.ts, bundled with what it imports into one plain file.
  await build({
    config: false,
    entry: { 'run-lock': join(sourceDir, 'run-lock.ts') },
    outDir: join(temp, 'bundle'),
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    noExternal: [/.*/],
    dts: false,
    silent: true,
    esbuildOptions(options) {
      options.conditions = ['@delta/source', 'import', 'module', 'node'];
    },
  });
  bundle = join(temp, 'bundle', 'run-lock.js');
}, 60_000);
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A contender process and a way to ask it one thing and wait for its one-line answer. */
function startContender() {
  const child = spawn(process.execPath, [join(sourceDir, 'run-lock-contender.test-fixture.mjs'), bundle], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answers: string[] = [];
  const waiting: Array<(answer: string) => void> = [];
  let gone: string | undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else answers.push(line);
  });
  // A contender that dies answers every question left with an error, rather than leaving the test waiting.
  child.once('exit', (code, signal) => {
    gone = `error the contender exited (${signal ?? code})`;
    for (const next of waiting.splice(0)) next(gone);
  });
  return {
    child,
    ask(line: string): Promise<string> {
      const answer = new Promise<string>((resolve) => {
        const ready = answers.shift();
        if (ready !== undefined) resolve(ready);
        else if (gone !== undefined) resolve(gone);
        else waiting.push(resolve);
      });
      if (gone === undefined) child.stdin!.write(`${line}\n`);
      return answer;
    },
  };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin!.end();
  return exited;
}

/** A holder that provably died: a real process, identified while it ran, then killed and collected. */
async function deadHolder(): Promise<string> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  const text = JSON.stringify({ pid: child.pid, host: hostname(), since: 'then', start_ticks: processStartTicks(child.pid!) });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return text;
}

describe('run lock under races', () => {
  it(`gives one run's lock to exactly one of two racing processes, ${ROUNDS} times`, { timeout: 30 * 60_000 }, async () => {
    const kinds = { fresh: 0, dead: 0, reused: 0 };
    const outcomes = { double: 0, none: 0, errors: [] as string[] };
    let pair = [startContender(), startContender()];
    for (let round = 0; round < ROUNDS; round += 1) {
      if (round > 0 && round % ROUNDS_PER_PAIR === 0) {
        await Promise.all(pair.map((contender) => stop(contender.child)));
        pair = [startContender(), startContender()];
      }
      const file = join(temp, `run-${round}.lock`);
      const marker = join(temp, `run-${round}.inside`);
      const kind = (['fresh', 'dead', 'reused'] as const)[round % 3]!;
      kinds[kind] += 1;
      if (kind === 'dead') writeFileSync(file, await deadHolder());
      // This test process is alive, but the lock names another start time: the pid was reused.
      if (kind === 'reused') writeFileSync(file, JSON.stringify({ pid: process.pid, host: hostname(), since: 'then', start_ticks: '1' }));

      const answers = await Promise.all(
        pair.map((contender) => contender.ask(`acquire ${file} ${marker} ${Math.floor(Math.random() * 300)}`)),
      );
      const holders = answers.filter((answer) => answer === 'held' || answer === 'double' || answer === 'lost').length;
      if (holders > 1 || answers.some((answer) => answer === 'double' || answer === 'lost')) outcomes.double += 1;
      if (holders === 0) outcomes.none += 1;
      for (const answer of answers) if (answer.startsWith('error')) outcomes.errors.push(`round ${round} (${kind}): ${answer}`);
      await Promise.all(pair.map((contender) => contender.ask('release')));
    }
    await Promise.all(pair.map((contender) => stop(contender.child)));

    process.stderr.write(
      `run lock stress: ${ROUNDS} racing pairs (${kinds.fresh} on a fresh lock, ${kinds.dead} on a dead holder's, ${kinds.reused} on a reused pid's): ${outcomes.double} double holders, ${outcomes.none} with no holder, ${outcomes.errors.length} errors\n`,
    );
    expect(outcomes.errors).toEqual([]);
    expect(outcomes.double).toBe(0);
    expect(outcomes.none).toBe(0);
  });
});
