import { spawn } from 'node:child_process';

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunProcessOptions {
  cwd?: string;
  /** The whole environment of the command (default: this process's). Undefined values are left out. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (stdin is empty without it). */
  input?: string;
  /** Called with the pid once the command has started, to signal or kill it while it runs. */
  onSpawn?: (pid: number) => void;
}

/**
 * Runs a real command to its end and captures its output; its failures are in the result, not thrown.
 * Not execa: no Delta package depends on it (it is in neither the lockfile nor the offline store, so
 * `pnpm add execa --offline` fails with ERR_PNPM_NO_OFFLINE_META), and these lines are all testkit needs.
 */
export function runProcess(command: string, args: readonly string[], options: RunProcessOptions = {}): Promise<ProcessResult> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.env ?? process.env)) if (value !== undefined) env[name] = value;
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd ?? process.cwd(), env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('spawn', () => child.pid !== undefined && options.onSpawn?.(child.pid));
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
    // A command that exits without reading its stdin (EPIPE) is not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
