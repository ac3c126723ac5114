import type { TaskWorkspaceLimits } from '@delta/experiments';
import { usageError } from '../usage-error.js';

const KEYS = { allocated: 'allocatedBytes', size: 'apparentBytes', entries: 'entries' } as const;
const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const EXAMPLE = 'For example: --max-task-workspace allocated=4G,size=64G,entries=500000 (each part optional; sizes in bytes or K, M, G, T)';

/** `--max-task-workspace allocated=4G,size=64G,entries=500000`: the bounds of a task's `workspace:` directory it raises. */
export function taskWorkspaceLimitsFlag(value: unknown): { taskWorkspaceLimits?: Partial<TaskWorkspaceLimits> } {
  if (value === undefined) return {};
  const limits: Partial<TaskWorkspaceLimits> = {};
  for (const part of [value].flat().flatMap((entry) => String(entry).split(','))) {
    const match = /^\s*(allocated|size|entries)\s*=\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*$/i.exec(part);
    if (!match) throw usageError(`--max-task-workspace: "${part}" is not allocated=SIZE, size=SIZE or entries=N.`, EXAMPLE);
    const key = KEYS[match[1]!.toLowerCase() as keyof typeof KEYS];
    const unit = match[3]!.toUpperCase();
    if (key === 'entries' && unit !== '') throw usageError(`--max-task-workspace: entries is a count, not a size ("${part}").`, EXAMPLE);
    const amount = Number(match[2]) * UNITS[unit]!;
    if (!Number.isSafeInteger(amount) || amount <= 0)
      throw usageError(`--max-task-workspace: "${part}" is not a positive amount.`, EXAMPLE);
    limits[key] = amount;
  }
  return { taskWorkspaceLimits: limits };
}
