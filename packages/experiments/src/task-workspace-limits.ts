import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '@delta/errors';
import type { Task } from './dataset.js';

/**
 * What a task's `workspace:` directory may hold: it is copied into `OUT/.batch/start/<task>/` and into the
 * workspace of every run of the task. `allocatedBytes`: the disk space its files take (holes of sparse
 * files are kept, so they cost nothing); `apparentBytes`: their sizes added up (each copy reads them all,
 * holes included); `entries`: files, directories and links.
 */
export interface TaskWorkspaceLimits {
  allocatedBytes: number;
  apparentBytes: number;
  entries: number;
}

const GIB = 1024 ** 3;

/** The defaults: 1 GiB on disk, 8 GiB of file sizes, 100,000 entries (raise them with `taskWorkspaceLimits`, `--max-task-workspace`). */
export const DEFAULT_TASK_WORKSPACE_LIMITS: TaskWorkspaceLimits = { allocatedBytes: GIB, apparentBytes: 8 * GIB, entries: 100_000 };

interface Measured {
  allocated: number;
  apparent: number;
  entries: number;
  /** The file that takes the most of the bound that was passed. */
  largest?: { file: string; allocated: number; apparent: number };
  over?: keyof TaskWorkspaceLimits;
}

/** Sizes the directory as copyDirectoryNoFollow copies it (links not followed, `.delta` left out); stops once over a bound. */
function measure(directory: string, limits: TaskWorkspaceLimits): Measured {
  const found: Measured = { allocated: 0, apparent: 0, entries: 0 };
  const visit = (path: string): void => {
    for (const name of readdirSync(path)) {
      if (found.over !== undefined) return;
      if (name === '.delta') continue;
      const file = join(path, name);
      const stat = lstatSync(file, { bigint: true });
      found.entries += 1;
      if (stat.isDirectory()) visit(file);
      else if (stat.isFile()) {
        const allocated = Number(stat.blocks) * 512;
        const apparent = Number(stat.size);
        found.allocated += allocated;
        found.apparent += apparent;
        if (found.largest === undefined || Math.max(allocated, apparent) > Math.max(found.largest.allocated, found.largest.apparent)) {
          found.largest = { file, allocated, apparent };
        }
      }
      if (found.entries > limits.entries) found.over = 'entries';
      else if (found.allocated > limits.allocatedBytes) found.over = 'allocatedBytes';
      else if (found.apparent > limits.apparentBytes) found.over = 'apparentBytes';
    }
  };
  visit(directory);
  return found;
}

/** `1.5 GiB`, `300 MiB`, `12 KiB`, `10 bytes`. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${Number(value.toFixed(1))} ${units[unit]}`;
}

const FLAG = { allocatedBytes: 'allocated', apparentBytes: 'size', entries: 'entries' } as const;

function overError(task: Task, directory: string, limits: TaskWorkspaceLimits, found: Measured): ConfigurationError {
  const over = found.over!;
  const what =
    over === 'entries'
      ? `more than ${limits.entries} entries (files, directories and links)`
      : over === 'allocatedBytes'
        ? `more than ${formatBytes(limits.allocatedBytes)} on disk`
        : `files of more than ${formatBytes(limits.apparentBytes)} in all (sparse files count at their full size: each copy reads them)`;
  const largest =
    over !== 'entries' && found.largest
      ? `; the largest file is ${found.largest.file} (${formatBytes(found.largest.apparent)}, ${formatBytes(found.largest.allocated)} on disk)`
      : '';
  const suggested = over === 'entries' ? String(limits.entries * 2) : `${Math.ceil((limits[over] * 2) / GIB)}G`;
  return new ConfigurationError(
    `The task ${task.id} cannot be run: its workspace directory ${directory} holds ${what}${largest}. It is copied into OUT/.batch/start/${task.id}/ and into every run of the task.`,
    {
      code: 'DATASET_INVALID',
      file: found.largest?.file ?? directory,
      field: 'workspace',
      hint:
        `Make the task's workspace smaller (leave the large file out, and have the agent fetch or build it), or raise the bound: ` +
        `delta batch --max-task-workspace ${FLAG[over]}=${suggested} (the library's taskWorkspaceLimits.${over}).`,
    },
  );
}

/** Refuses, before anything runs, the first task whose `workspace:` directory is over a bound, naming the task, the file and the fix. */
export function checkTaskWorkspaces(tasks: readonly Task[], given: Partial<TaskWorkspaceLimits> = {}): void {
  const limits = { ...DEFAULT_TASK_WORKSPACE_LIMITS, ...given };
  const measured = new Map<string, Measured>();
  for (const task of tasks) {
    if (task.workspace === undefined) continue;
    // Tasks often share one directory: measured once.
    const found = measured.get(task.workspace) ?? measure(task.workspace, limits);
    measured.set(task.workspace, found);
    if (found.over !== undefined) throw overError(task, task.workspace, limits, found);
  }
}
