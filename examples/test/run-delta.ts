import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `delta` launcher of this repository (turbo builds @delta/cli before these tests). */
export const DELTA_BIN = fileURLToPath(new URL('../../apps/delta-cli/bin/delta.js', import.meta.url));
export const FAKE_LLM_BIN = fileURLToPath(new URL('../../packages/testkit/bin/delta-fake-llm.js', import.meta.url));
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ProcessResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion with the given environment additions, capturing its output. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPOSITORY_ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
