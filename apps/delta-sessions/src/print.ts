import { exitCodeOf } from '@delta/errors';
import { SessionError } from '@delta/sessions';

/** Exit codes: 0 done (whatever the command's own exit_code), 1 the session operation failed, 2 usage. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

// A reader that stops early (`| head`) is not an error of ours: the command has done its work (an exec's
// session state is saved) and exits as it would have. Any other write error (`> /dev/full`) is one line
// on stderr and exit code 1, not a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') return;
  process.stderr.write(`delta-sessions: cannot write to stdout: ${error.message}\n`);
  process.exitCode = exitCodes.failed;
});

/** Every answer, errors included, is JSON on stdout, so a tool's observation always holds it. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printError(error: unknown): void {
  if (SessionError.isInstance(error)) {
    printJson(error.toJSON());
    // 2 for INVALID_ARGUMENT (a usage error), 1 for every other code: docs/errors.md.
    process.exitCode = exitCodeOf(error);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  // cac reports usage mistakes (unknown option, missing argument) as a CACError.
  const usage = error instanceof Error && error.name === 'CACError';
  printJson({ error: { code: usage ? 'INVALID_ARGUMENT' : 'INTERNAL', message } });
  process.exitCode = usage ? exitCodes.usage : exitCodes.failed;
}
