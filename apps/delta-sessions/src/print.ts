import { SessionError } from '@delta/sessions';

/** Exit codes: 0 done (whatever the command's own exit_code), 1 the session operation failed, 2 usage. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
});

/** Every answer, errors included, is JSON on stdout, so a tool's observation always holds it. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printError(error: unknown): void {
  if (SessionError.isInstance(error)) {
    printJson(error.toJSON());
    process.exitCode = error.code === 'INVALID_ARGUMENT' ? exitCodes.usage : exitCodes.failed;
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  // cac reports usage mistakes (unknown option, missing argument) as a CACError.
  const usage = error instanceof Error && error.name === 'CACError';
  printJson({ error: { code: usage ? 'INVALID_ARGUMENT' : 'INTERNAL', message } });
  process.exitCode = usage ? exitCodes.usage : exitCodes.failed;
}
