import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { ConfigurationError } from '@delta/errors';

export interface RunLock {
  readonly file: string;
  release(): void;
}

interface Holder {
  pid?: number;
  host?: string;
  since?: string;
  /** The holder's start time from /proc/<pid>/stat, which tells it from a later process reusing its pid. */
  start_ticks?: string;
}

function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(file: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Holder;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A lock file cut off while being written belongs to nobody.
    return {};
  }
}

function holderIsLive(holder: Holder): boolean {
  const sameHost = holder.host === undefined || holder.host === hostname();
  if (typeof holder.pid !== 'number') return false;
  if (!sameHost) return true;
  if (!isAlive(holder.pid)) return false;
  // A live process with the holder's pid but another start time reused the pid: the holder is gone.
  const ticks = holder.start_ticks === undefined ? undefined : startTicks(holder.pid);
  return ticks === undefined || ticks === holder.start_ticks;
}

function tryCreate(file: string): boolean {
  try {
    const descriptor = openSync(file, 'wx');
    const ticks = startTicks(process.pid);
    writeSync(
      descriptor,
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        since: new Date().toISOString(),
        ...(ticks === undefined ? {} : { start_ticks: ticks }),
      }),
    );
    closeSync(descriptor);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function refuse(file: string, runId: string, holder: Holder): ConfigurationError {
  return new ConfigurationError(
    `Run ${runId} is being written by another engine process (pid ${holder.pid}${holder.host ? ` on ${holder.host}` : ''}, since ${holder.since ?? 'unknown'}).`,
    {
      code: 'RUN_LOCKED',
      file,
      hint: `Wait for that process to finish, or stop it (kill ${holder.pid}) and then use \`delta continue\`. Two engines never write to one run.`,
    },
  );
}

const TAKEOVER_STALE_MS = 10_000;

/**
 * Takes the run's lock file so that one engine process at a time writes to a run. A lock left by a
 * process that no longer exists (a crash, `kill -9`) is taken over; the takeover itself is guarded by a
 * second lock file, so two processes that both find a dead holder can never both proceed.
 */
export function acquireRunLock(file: string, runId: string): RunLock {
  const takeover = `${file}.takeover`;
  const lock = { file, release: () => rmSync(file, { force: true }) };
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (tryCreate(file)) return lock;
    const holder = readHolder(file);
    if (holder === undefined) continue;
    if (holderIsLive(holder)) throw refuse(file, runId, holder);

    if (!tryCreate(takeover)) {
      try {
        if (Date.now() - statSync(takeover).mtimeMs > TAKEOVER_STALE_MS) rmSync(takeover, { force: true });
      } catch {
        // Gone already.
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      continue;
    }
    try {
      // Under the takeover lock, nobody else can replace the lock file: check the holder once more.
      const again = readHolder(file);
      if (again && holderIsLive(again)) throw refuse(file, runId, again);
      rmSync(file, { force: true });
      if (tryCreate(file)) return lock;
    } finally {
      rmSync(takeover, { force: true });
    }
  }
  throw new ConfigurationError(`Could not take the lock ${file} for run ${runId}.`, {
    code: 'RUN_LOCKED',
    file,
    hint: 'Another process keeps creating and removing it; try again.',
  });
}
