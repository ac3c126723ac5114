import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `delta` launcher (turbo builds the CLI before its tests; locally run `npx tsup` first). */
export const DELTA_BIN = fileURLToPath(new URL('../../bin/delta.js', import.meta.url));

export interface DeltaResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `delta` in a child process with stdin closed (never a terminal). The environment is
 * the parent's minus model settings, plus `env`.
 */
export function runDelta(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<DeltaResult> {
  const environment: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DELTA_API_KEY', 'OPENAI_API_KEY', 'DELTA_BASE_URL', 'OPENAI_BASE_URL', 'OPENAI_API_URL']) delete environment[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DELTA_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...environment, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}
