/**
 * The first SIGINT or SIGTERM aborts the run gracefully (the running tool is stopped and the run is
 * recorded as INTERRUPTED); a second one exits at once. `what` names what stops, as the person sees it.
 */
export function abortOnSignals(controller: AbortController, write: (text: string) => void, what = 'the run'): () => void {
  let received = 0;
  const handler = (signal: NodeJS.Signals) => {
    received += 1;
    if (received > 1) process.exit(130);
    write(`\n${signal} received: stopping ${what} (send it again to exit at once)...\n`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
