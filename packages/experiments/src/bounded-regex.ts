import { Worker } from 'node:worker_threads';

/**
 * How long `builtin:regex` may match one answer. JavaScript's engine backtracks: a pattern such as
 * `^(\w+\s?)*$` takes exponential time on `aaaa…a!`, so the match runs in a worker thread that is stopped
 * at this bound, and the batch's own event loop never waits on it.
 */
export const REGEX_TIME_LIMIT_MS = 1000;

export type RegexOutcome = { kind: 'matched' | 'unmatched' } | { kind: 'invalid'; message: string } | { kind: 'timeout' };

// Evaluated as the worker's script (no file to ship beside the bundle): compiles and tries each pattern.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ patterns, answer }) => {
  parentPort.postMessage({ kind: 'started' });
  const compiled = [];
  for (const pattern of patterns) {
    try {
      compiled.push(new RegExp(pattern));
    } catch (error) {
      parentPort.postMessage({ kind: 'invalid', message: String(error && error.message) });
      return;
    }
  }
  parentPort.postMessage({ kind: compiled.some((pattern) => pattern.test(answer)) ? 'matched' : 'unmatched' });
});
`;

/** How long a worker may take to start and receive the answer, on a machine under load. */
const STARTUP_LIMIT_MS = 30_000;

/** Idle workers kept for the next grades; more are made while grades run at once, and ended when they finish. */
const MAX_IDLE_WORKERS = 2;
const idle: Worker[] = [];

function takeWorker(): Worker {
  const worker = idle.pop() ?? new Worker(WORKER_SOURCE, { eval: true });
  // Never keeps the process alive: a grade in progress is held by its timer.
  worker.unref();
  return worker;
}

/**
 * Whether `answer` matches any of `patterns` (JavaScript syntax), in a worker thread of its own while it
 * runs, ended after `limitMs` (and replaced for the next grade). Grades at the same time never wait on
 * each other, and this thread never waits on a match.
 */
export function matchAnyBounded(patterns: string[], answer: string, limitMs = REGEX_TIME_LIMIT_MS): Promise<RegexOutcome> {
  const worker = takeWorker();
  return new Promise((resolve) => {
    const finish = (outcome: RegexOutcome, keep: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      if (keep && idle.length < MAX_IDLE_WORKERS) idle.push(worker);
      else void worker.terminate();
      resolve(outcome);
    };
    // The bound counts from the moment the worker has the answer: a new worker's start (slow on a busy
    // machine) is not the pattern's time. A worker that never starts is given up after STARTUP_LIMIT_MS.
    let timer = setTimeout(() => finish({ kind: 'timeout' }, false), STARTUP_LIMIT_MS);
    const onMessage = (outcome: RegexOutcome | { kind: 'started' }) => {
      if (outcome.kind !== 'started') return finish(outcome, true);
      clearTimeout(timer);
      timer = setTimeout(() => finish({ kind: 'timeout' }, false), limitMs);
    };
    // A worker that failed (out of memory on a huge answer, say) is ended; the match did not finish.
    const onError = () => finish({ kind: 'timeout' }, false);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.postMessage({ patterns, answer });
  });
}
