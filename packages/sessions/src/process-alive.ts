import { readFileSync, readdirSync } from 'node:fs';

/** State, parent and process group of a pid from /proc, or undefined where there is no /proc. */
function procStat(pid: number | string): { state: string; processGroup: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', processGroup: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    readdirSync('/proc/self');
    return true;
  } catch {
    return false;
  }
})();

/**
 * Whether `pid` is running (a zombie is not). With `expectedInCommandLine`, also whether it is
 * still the process we started (checked through /proc where there is one), so a recycled pid does
 * not count.
 */
export function isProcessAlive(pid: number, expectedInCommandLine?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!hasProc) return true;
  const stat = procStat(pid);
  if (stat === undefined || stat.state === 'Z') return false;
  if (expectedInCommandLine === undefined) return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(expectedInCommandLine);
  } catch {
    return false;
  }
}

/** Whether any live (non-zombie) process is in process group `processGroup`. */
export function isProcessGroupAlive(processGroup: number): boolean {
  try {
    process.kill(-processGroup, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!hasProc) return true;
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const stat = procStat(entry);
    return stat !== undefined && stat.processGroup === processGroup && stat.state !== 'Z';
  });
}
