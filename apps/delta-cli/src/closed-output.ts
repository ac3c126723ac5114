/**
 * What happens when stdout or stderr stops taking output: the reader went away (`delta log | head -1`,
 * EPIPE) or the file it goes to cannot grow (`delta log > out` on a full disk). Node reports either as an
 * 'error' event on the stream, which, unhandled, ends the process with a stack trace, or, when stderr is
 * the closed one, ends it silently: a run started as `delta run ... 2>&1 | head -1` died in mid-step.
 *
 * Two policies. A command that only prints (log, show, list, view, ...) stops quietly with exit code 0
 * when its reader is gone, like `cat` or `git log` under `head`; any other write error is reported on the
 * stream that still works, with exit code 1. A run (run, continue) goes on to its end whatever happens to
 * its output: its journal and metadata.json, not its terminal, say how it ended.
 */

type Policy = 'stop' | 'keep-running';

let policy: Policy = 'stop';
let installed = false;

function isClosedReader(error: NodeJS.ErrnoException): boolean {
  return error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED';
}

function onWriteError(stream: NodeJS.WriteStream, error: NodeJS.ErrnoException): void {
  if (policy === 'keep-running') return;
  if (isClosedReader(error)) process.exit(0);
  const other = stream === process.stdout ? process.stderr : process.stdout;
  const name = stream === process.stdout ? 'stdout' : 'stderr';
  try {
    other.write(`Error: cannot write to ${name}: ${error.message}\n`);
  } catch {
    // Both are gone: the exit code is all that is left.
  }
  process.exit(1);
}

/** Installs the handlers on stdout and stderr, for the whole process; the default policy is 'stop'. */
export function handleClosedOutput(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => onWriteError(stream, error));
  }
}

/** From now on a closed or failing stdout or stderr is ignored: what is written to it is dropped. */
export function keepRunningWhenOutputCloses(): void {
  policy = 'keep-running';
}
