import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { ConfigurationError } from '@delta/errors';

export interface RunLock {
  readonly file: string;
  release(): void;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes the run's lock file so that one engine process at a time writes to a run. A lock left by a
 * process that no longer exists (a crash, `kill -9`) is taken over.
 */
export function acquireRunLock(file: string, runId: string): RunLock {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const descriptor = openSync(file, 'wx');
      writeSync(descriptor, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
      closeSync(descriptor);
      return {
        file,
        release: () => rmSync(file, { force: true }),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: { pid?: number; host?: string; since?: string } = {};
    try {
      holder = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // A lock file cut off while being written belongs to nobody.
    }
    const sameHost = holder.host === undefined || holder.host === hostname();
    if (typeof holder.pid === 'number' && sameHost && isAlive(holder.pid)) {
      throw new ConfigurationError(
        `Run ${runId} is being written by another engine process (pid ${holder.pid}, since ${holder.since ?? 'unknown'}).`,
        {
          code: 'RUN_LOCKED',
          file,
          hint: `Wait for that process to finish, or stop it (kill ${holder.pid}) and then use \`delta continue\`. Two engines never write to one run.`,
        },
      );
    }
    rmSync(file, { force: true });
  }
  throw new ConfigurationError(`Could not take the lock ${file} for run ${runId}.`, { code: 'RUN_LOCKED', file });
}
