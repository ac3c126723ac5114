/** Sandboxes created and not yet started, oldest first (see startSoon). */
const toStart: Array<{ startIfWaiting(): void }> = [];

/**
 * Starts `sandbox` soon, one sandbox per turn of the event loop: starting a bubblewrap forks this process
 * (about 5 ms for a batch's engine), and a batch that opens 256 runs at once would otherwise fork 256
 * times before the first of them sends its first request. A sandbox needed before its turn is started
 * then (RunSandbox.launcher, wrap).
 */
export function startSoon(sandbox: { startIfWaiting(): void }): void {
  toStart.push(sandbox);
  if (toStart.length === 1) setImmediate(startNext);
}

function startNext(): void {
  const next = toStart.shift();
  next?.startIfWaiting();
  if (toStart.length > 0) setImmediate(startNext);
}
