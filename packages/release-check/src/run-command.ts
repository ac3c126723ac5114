import { spawn } from 'node:child_process';

export interface CommandResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion. The npm_config_* and npm_package_* variables pnpm sets for this test
 * are dropped, so npm in the temp project behaves as it does for a user.
 */
export function runCommand(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CommandResult> {
  const environment: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(npm_config_|npm_package_|npm_lifecycle_|pnpm_|PNPM_)/i.test(key)) continue;
    environment[key] = value;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...environment, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

/** Like runCommand, but a non-zero exit is an error that shows the command's output. */
export async function mustRun(command: string, args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CommandResult> {
  const result = await runCommand(command, args, options);
  if (result.exitCode !== 0) {
    throw new Error(`${command} ${args.join(' ')} exited with ${result.exitCode} in ${options.cwd}\n${result.stdout}\n${result.stderr}`);
  }
  return result;
}
