import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `delta` launcher (turbo builds this package before its tests run). */
export const DELTA_BIN = fileURLToPath(new URL('../bin/delta.js', import.meta.url));

export interface DeltaResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `delta` as a real process. The model credentials of the calling environment are never passed on. */
export function runDelta(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; onSpawn?: (pid: number) => void } = {},
): Promise<DeltaResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DELTA_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, DELTA_BASE_URL: undefined, OPENAI_BASE_URL: undefined, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('spawn', () => child.pid !== undefined && options.onSpawn?.(child.pid));
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
