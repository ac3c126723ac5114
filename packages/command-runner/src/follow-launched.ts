import { existsSync } from 'node:fs';
import { captureFromFile } from './file-capture.js';
import type { LaunchedCommand } from './launcher.js';
import type { CommandResult, RunCommandOptions } from './run-command.js';
import { describeStartError, runDirect } from './run-direct.js';
import { Supervisor } from './supervisor.js';

/** Follows a launched command to its end; the result is the same as runDirect's. */
export async function followLaunched(
  options: RunCommandOptions,
  launched: LaunchedCommand & { finish?: () => void; lastResort?: () => void },
  stdoutFile: string,
  stderrFile: string,
  sandboxed: boolean,
): Promise<CommandResult> {
  const captureBytes = options.captureBytes ?? 64 * 1024;
  const started = performance.now();
  const supervisor = new Supervisor(options);
  // A sandboxed command's pid is of the sandbox's PID namespace: only the launcher in there can signal it.
  if (sandboxed) supervisor.through((signal) => launched.kill(signal), launched.lastResort);
  const pid = await launched.started;
  supervisor.started(pid);
  if (pid !== undefined) options.onStart?.(pid);
  const outcome = await launched.ended;
  supervisor.dispose();
  launched.finish?.();
  if ('error' in outcome && outcome.error.code === 'ELAUNCHER' && pid === undefined && !supervisor.gaveUp) {
    // A launcher that died before starting the command (it could not run, say) leaves the job to us;
    // the sandbox's means the sandbox is gone, and nothing may run outside it instead.
    if (!sandboxed) return runDirect(options);
    outcome.error.message = `the run's sandbox (bubblewrap) is not running: ${outcome.error.message}`;
  }
  const durationMs = performance.now() - started;
  if ('error' in outcome) {
    const error = Object.assign(new Error(outcome.error.message), { code: outcome.error.code });
    // A file that could not be opened leaves no capture to read.
    const empty = { head: '', tail: '', totalBytes: 0, omittedBytes: 0 };
    const read = (file: string) => (existsSync(file) ? captureFromFile(file, captureBytes) : empty);
    return {
      exitCode: null,
      signal: null,
      timedOut: supervisor.timedOut,
      aborted: supervisor.aborted,
      startError: describeStartError(error, options.file),
      durationMs,
      stdout: read(stdoutFile),
      stderr: read(stderrFile),
    };
  }
  if (outcome.processFileError) {
    // As runDirect throws when it cannot write it: the same error, naming the file.
    const { code, message, file } = outcome.processFileError;
    throw Object.assign(new Error(message), { code, path: file });
  }
  return {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    timedOut: supervisor.timedOut,
    aborted: supervisor.aborted,
    durationMs,
    stdout: captureFromFile(stdoutFile, captureBytes),
    stderr: captureFromFile(stderrFile, captureBytes),
  };
}
