import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { ConfigurationError } from '@delta/errors';
import { currentHolder, holderIsAlive, type RunLockHolder, safeParseRunLockHolder } from './run-lock-holder.js';
import { readRunRecord, SMALL_RECORD_MAX_BYTES } from './read-record.js';

export interface RunLock {
  readonly file: string;
  /** Stops renewing the lease and removes the file, while it still names this holder. */
  release(): void;
}

export interface RunLockOptions {
  /** How long a lease holds without renewal (default 30 s); it is renewed every sixth of that. */
  leaseMs?: number;
  /** The error when a live holder has it (default: RUN_LOCKED, naming the run): for other locks taken the same way. */
  refuse?: (holder: RunLockHolder) => Error;
}

/** Long enough for a busy machine to renew in time; short enough that a lost host's runs move on within a minute. */
export const RUN_LOCK_LEASE_MS = 30_000;

/** Tries before giving up: each one either finds a live holder (the end) or saw the lock change under it. */
const MAX_ATTEMPTS = 200;
/** Claims on claims: each level needs a taker-over that died in the middle of its takeover. */
const MAX_CLAIM_DEPTH = 8;

type Taken = { held: true } | { held: false; holder: RunLockHolder };

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** A new file next to `file`, holding `text` in full, for link() or rename() to put in place. */
function writeTemporary(file: string, text: string): string {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, text, { flag: 'wx' });
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return temporary;
}

/** Creates `file` with `text` unless it exists: link() of a complete file, so nobody ever reads it empty or cut short. */
function createWhole(file: string, text: string): boolean {
  const temporary = writeTemporary(file, text);
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Replaces `file` with `text` in one step (rename), so readers see the old holder or the new one. */
function replaceWhole(file: string, text: string): void {
  const temporary = writeTemporary(file, text);
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

function readText(file: string): string | undefined {
  return readRunRecord(file, SMALL_RECORD_MAX_BYTES)?.toString('utf8');
}

function parseHolder(file: string, text: string): RunLockHolder {
  const parsed = safeParseRunLockHolder(text);
  if (parsed.success) return parsed.data;
  // Never written by this version (it writes lock files whole); an older engine that died while writing one?
  throw new ConfigurationError(`The run lock ${file} does not name its holder: ${parsed.problem}.`, {
    code: 'RUN_LOCKED',
    file,
    hint: `If no engine process is running on this run (check with ps), delete ${file} and try again.`,
  });
}

function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/**
 * Takes `file` for the holder `text`. A live holder wins. A holder proved dead is replaced, but only by
 * the process that first claims that very holder: the claim is a lock file of its own, named after the
 * dead holder and taken the same way (recursively: a claimant that died mid-takeover is taken over in
 * turn). While a claim on holder H is held, nobody else can change a lock file that still names H, so
 * the claimant checks that it still does and renames its own holder over it. Of any number of
 * processes that find the same dead holder, exactly one replaces it; the others then find the new,
 * live holder.
 */
function take(file: string, text: string, depth: number): Taken {
  let claimant: RunLockHolder | undefined;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (createWhole(file, text)) return { held: true };
    const found = readText(file);
    if (found === undefined) continue; // released in between: try again
    const holder = parseHolder(file, found);
    if (holderIsAlive(holder)) return { held: false, holder };
    if (depth >= MAX_CLAIM_DEPTH) break;
    const claim = `${file}.takeover-${holder.pid}-${holder.start_ticks ?? 'unknown'}`;
    const claimed = take(claim, text, depth + 1);
    if (!claimed.held) {
      // Another live process is replacing this holder right now: wait for it to finish.
      claimant = claimed.holder;
      pause(2);
      continue;
    }
    try {
      if (readText(file) === found) {
        replaceWhole(file, text);
        return { held: true };
      }
    } finally {
      rmSync(claim, { force: true });
    }
  }
  // A live process that has been taking over a dead holder all this time is about to hold the lock.
  if (claimant !== undefined) return { held: false, holder: claimant };
  throw new ConfigurationError(`Could not take the lock ${file}: it kept changing hands.`, {
    code: 'RUN_LOCKED',
    file,
    hint: 'Other processes keep taking and releasing it; try again.',
  });
}

function refuse(file: string, runId: string, holder: RunLockHolder): ConfigurationError {
  const elsewhere = holder.host !== hostname();
  const lease = elsewhere && holder.lease_until ? `, its lease runs to ${holder.lease_until}` : '';
  return new ConfigurationError(
    `Run ${runId} is being written by another engine process (pid ${holder.pid} on ${holder.host}, since ${holder.since}${lease}).`,
    {
      code: 'RUN_LOCKED',
      file,
      hint: elsewhere
        ? holder.lease_until
          ? `Wait for that process to finish. If ${holder.host} is gone, its lock can be taken once the lease has run out (clocks must agree between hosts). Two engines never write to one run.`
          : `An engine on ${holder.host} that records no lease holds it: stop it there, or if that host is gone, delete ${file}. Two engines never write to one run.`
        : `Wait for that process to finish, or stop it (kill ${holder.pid}) and then use \`delta continue\`. Two engines never write to one run.`,
    },
  );
}

/**
 * Renews the holder's lease every `leaseMs / 6` while the file still names it, late ones included: a
 * holder that was stopped for a while and still finds itself in the file keeps its run. Once the file
 * names another holder (a host that found the lease run out), renewal stops. The engine itself does not
 * stop then (see docs/scale-out.md): a lease only protects engines that are not frozen for its length.
 */
function renewLease(file: string, first: string, leaseMs: number): { current(): string; stop(): void } {
  let text = first;
  let holder = JSON.parse(first) as RunLockHolder;
  const timer = setInterval(
    () => {
      const now = Date.now();
      try {
        if (readText(file) !== text) {
          clearInterval(timer);
          return;
        }
        holder = { ...holder, lease_until: new Date(now + leaseMs).toISOString() };
        const next = `${JSON.stringify(holder)}\n`;
        replaceWhole(file, next);
        text = next;
      } catch {
        // A disk fault now: the next tick tries again while the lease lasts.
      }
    },
    Math.max(10, Math.floor(leaseMs / 6)),
  );
  // The lease never keeps a process alive on its own.
  timer.unref();
  return { current: () => text, stop: () => clearInterval(timer) };
}

/**
 * Takes the run's lock file so that one engine process at a time writes to a run. The holder (pid,
 * host, since, start time, lease) is written to a new file first and linked into place whole, and its
 * lease renewed while it runs. A lock whose holder is provably dead (on this host: its pid gone, a
 * zombie, or reused by a later process; on another host: its lease run out) is taken over, race-free
 * (see `take`). Release removes the file only while it still names this holder.
 */
export function acquireRunLock(file: string, runId: string, options: RunLockOptions = {}): RunLock {
  const leaseMs = options.leaseMs ?? RUN_LOCK_LEASE_MS;
  const text = `${JSON.stringify(currentHolder(leaseMs))}\n`;
  const taken = take(file, text, 0);
  if (!taken.held) throw options.refuse ? options.refuse(taken.holder) : refuse(file, runId, taken.holder);
  const lease = renewLease(file, text, leaseMs);
  return {
    file,
    release: () => {
      lease.stop();
      if (readText(file) === lease.current()) rmSync(file, { force: true });
    },
  };
}
