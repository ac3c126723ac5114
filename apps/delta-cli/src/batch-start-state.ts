/** What fills a replay's or fork's new workspace when the source run is a batch run (its task's files); else undefined. */
export async function batchStartState(workDir: string): Promise<((into: string) => void) | undefined> {
  const { batchRunStartState } = await import('@delta/experiments');
  return batchRunStartState(workDir);
}
