import { expect } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DELTA_BIN, type DeltaResult, deltaEnv } from './test-support.js';

export { deltaEnv };

/** The directory of the workspace's latest run, once `.delta/LATEST` exists. */
export function latestRunDir(work: string): string | undefined {
  const latest = join(work, '.delta', 'LATEST');
  return existsSync(latest) ? join(work, '.delta', readFileSync(latest, 'utf8').trim()) : undefined;
}

/** Complete lines in a file (0 if it does not exist). */
export function lineCount(file: string): number {
  if (!existsSync(file)) return 0;
  let count = 0;
  for (const byte of readFileSync(file)) if (byte === 0x0a) count += 1;
  return count;
}

export interface RunningDelta {
  child: ChildProcess;
  done: Promise<DeltaResult>;
}

/** Starts `delta` as a real process, to signal or kill it while it runs. Model credentials come only from `env`. */
export function startDelta(args: string[], env: Record<string, string>): RunningDelta {
  const child = spawn(process.execPath, [DELTA_BIN, ...args], {
    env: deltaEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<DeltaResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Waits until the latest run's journal has a line that matches `test` (polling every few ms). */
export async function waitForJournal(work: string, test: (line: string) => boolean, timeoutMs = 20_000): Promise<void> {
  const hasLine = () => {
    const dir = latestRunDir(work);
    const journal = dir && join(dir, 'journal.jsonl');
    const lines = journal && existsSync(journal) ? readFileSync(journal, 'utf8').split('\n') : [];
    return lines.some((line) => line.endsWith('}') && test(line));
  };
  await expect
    .poll(hasLine, { timeout: timeoutMs, interval: 5, message: `the journal in ${work} never got the awaited line within ${timeoutMs} ms` })
    .toBe(true);
}
