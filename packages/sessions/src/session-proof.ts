import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { hasProcFileSystem, isProcessAlive, readProcessStat } from '@delta/process-identity';

/**
 * The variable that carries a session's marker into the environment of its session process (and, by
 * inheritance, its interpreter). Everything under .sessions/ is written where a tool can write, so
 * metadata.json is a claim, never a proof: `end` and `cleanup` signal a pid only when the process
 * itself proves it is the session's, its start time matching and its own environment (which no later
 * write to a file can change) holding the marker. A tool can only make that hold for processes it
 * started itself.
 */
export const sessionMarkerVariable = 'DELTA_SESSION_MARKER';

/**
 * The variable that names, in the session process's own environment, the real path of its session
 * directory (set at start). A session directory copied elsewhere (a tool can read another workspace's
 * .sessions/ and copy it, pid, start time and marker included) names processes whose environment names
 * the original directory, not the copy: they are not the copy's to signal.
 */
export const sessionDirectoryVariable = 'DELTA_SESSION_DIR';

export function newSessionMarker(): string {
  return randomBytes(16).toString('hex');
}

/** What metadata.json claims about one process of a session. */
export interface ProcessClaim {
  pid: number | undefined;
  startTicks: string | undefined;
  marker: string | undefined;
  /** The session directory being acted on; the process must name its real path as its own. */
  directory: string;
  /** The supervisor leads its own process group, which `end` signals as a whole. */
  groupLeader?: boolean;
}

/** Proven: the session's own process. Otherwise why not, and whether some process runs under that pid. */
export type ProcessProof = { proven: true; pid: number } | { proven: false; running: boolean; reason: string };

export function proveSessionProcess(claim: ProcessClaim): ProcessProof {
  const { pid } = claim;
  if (pid === undefined || !isProcessAlive(pid)) return { proven: false, running: false, reason: 'no process runs under its pid' };
  const notOurs = (why: string): ProcessProof => ({ proven: false, running: true, reason: `pid ${pid} is running but ${why}` });
  if (!hasProcFileSystem()) return notOurs('there is no /proc to prove it is the session process');
  if (pid === process.pid || isAncestor(pid)) return notOurs('it is this command or one of its parents');
  if (claim.marker === undefined || claim.startTicks === undefined) {
    return notOurs(
      'metadata.json records no marker and start time to prove it is the session process (forged, or written by an older delta-sessions)',
    );
  }
  const stat = readProcessStat(pid);
  if (stat === undefined) return { proven: false, running: false, reason: 'no process runs under its pid' };
  if (stat.startTicks !== claim.startTicks)
    return notOurs(`started at another time (${stat.startTicks}, not ${claim.startTicks}): not the session process`);
  if (claim.groupLeader && stat.processGroup !== pid) return notOurs('does not lead its own process group, as a session process does');
  let environment: string;
  try {
    environment = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch (error) {
    return notOurs(
      `its environment cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}) to prove it is the session process`,
    );
  }
  const variables = environment.split('\0');
  if (!variables.includes(`${sessionMarkerVariable}=${claim.marker}`)) {
    return notOurs("its environment lacks the session's marker: not a process this session started");
  }
  const directory = realPath(claim.directory);
  if (directory === undefined) return notOurs(`the session directory ${claim.directory} cannot be resolved to prove it is its process`);
  if (!variables.includes(`${sessionDirectoryVariable}=${directory}`)) {
    const named = variables
      .find((variable) => variable.startsWith(`${sessionDirectoryVariable}=`))
      ?.slice(sessionDirectoryVariable.length + 1);
    return notOurs(
      `it belongs to another session directory (${named ?? 'none named'}), not ${directory}: a session copied from elsewhere is never this one's to end`,
    );
  }
  return { proven: true, pid };
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isAncestor(pid: number): boolean {
  let current = readProcessStat(process.pid)?.parentPid;
  for (let depth = 0; current !== undefined && current > 0 && depth < 64; depth += 1) {
    if (current === pid) return true;
    current = readProcessStat(current)?.parentPid;
  }
  return false;
}
