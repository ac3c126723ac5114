/**
 * What `delta run` says when it resumes the workspace's latest run instead of starting one: whose answer a
 * paused run gets (the file's, `answerFromFile`, or the -m message), or that the message is added to it.
 */
export function resumeNote(run: { runId: string; status: string; workDir: string }, answerFromFile: boolean): string {
  const what =
    run.status !== 'WAITING_FOR_INPUT'
      ? 'your -m message is added to it (add --new to start a new run instead).'
      : answerFromFile
        ? 'its answer is taken from interaction/response.txt; your -m message is not used (send it afterwards with delta continue -m).'
        : 'your -m message is the answer to its question.';
  return `Resuming run ${run.runId} (${run.status}) in ${run.workDir}: ${what}\n`;
}
