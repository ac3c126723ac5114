/**
 * One policy for a batch run whose model endpoint fails transiently (a 5xx, a timeout, a refused connection)
 * after the client's own retries (`llm.max_retries`): the same in a local batch and through a queue.
 */

/** Attempts of a run in all, by default: the run FAILED is final, as for `delta run`. `--max-attempts` raises it. */
export const DEFAULT_MAX_ATTEMPTS = 1;

/** The delay before the first re-attempt; each later one waits twice the one before (5 s, 10 s, 20 s ...). */
export const REATTEMPT_DELAY_MS = 5_000;

/** The wait before re-attempt `n` (1 for the first re-attempt). */
export function reattemptDelayMs(n: number, firstMs = REATTEMPT_DELAY_MS): number {
  return firstMs * 2 ** (n - 1);
}

/** How many attempts of a run ended FAILED on a transient fault: its journal's transient ERROR events. */
export function transientFailures(events: readonly { type: string }[]): number {
  return events.filter((event) => event.type === 'ERROR' && (event as { transient?: unknown }).transient === true).length;
}

/** Waits `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
