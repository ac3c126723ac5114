import { setMaxListeners } from 'node:events';

/**
 * A signal that follows `signal` and that any number of runs in flight may listen to: each run adds its
 * listeners, and Node warns (MaxListenersExceededWarning) past ten on one signal, which a batch of
 * `--concurrency 11` reached. The caller's own signal gets one listener, removed by `release`.
 */
export function sharedSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; release: () => void } {
  if (signal === undefined) return { signal: undefined, release: () => {} };
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const follow = () => controller.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', follow) };
}
