import { SystemError } from '@delta/errors';
import { runProcess, type ProcessResult } from '@delta/testkit';

export type CommandResult = ProcessResult;

/**
 * Runs a command to completion, through testkit's runProcess (why not execa: see its comment). The npm_config_* and npm_package_* variables pnpm sets for this test
 * are dropped, so npm in the temp project behaves as it does for a user.
 */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CommandResult> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(npm_config_|npm_package_|npm_lifecycle_|pnpm_|PNPM_)/i.test(key)) continue;
    environment[key] = value;
  }
  return runProcess(command, args, { cwd: options.cwd, env: { ...environment, ...options.env } });
}

/** Like runCommand, but a non-zero exit is an error that shows the command's output. */
export async function mustRun(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CommandResult> {
  const result = await runCommand(command, args, options);
  if (result.exitCode !== 0) {
    throw new SystemError(
      `${command} ${args.join(' ')} exited with ${result.exitCode} in ${options.cwd}\n${result.stdout}\n${result.stderr}`,
      {
        code: 'START_FAILED',
      },
    );
  }
  return result;
}
