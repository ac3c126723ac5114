/**
 * Calls `work` for each item, at most `concurrency` at a time, in order of the items. Once `signal` is
 * aborted no further item is started; those already started are awaited (they see the same signal).
 */
export async function runPool<Item>(
  items: readonly Item[],
  concurrency: number,
  work: (item: Item) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && signal?.aborted !== true) {
      const item = items[next]!;
      next += 1;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
}
