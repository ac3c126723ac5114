import type { BatchLimit } from '@delta/experiments';

/** The warning said once at the start of a batch for a limit it cannot hold: which, for which tasks, why, and the way out. */
export function unenforcedLimitWarning(line: BatchLimit): string {
  const tasks = line.tasks.length > 5 ? `${line.tasks.slice(0, 5).join(', ')} and ${line.tasks.length - 5} more` : line.tasks.join(', ');
  const fix =
    line.limit === 'layer'
      ? 'A layer limit bounds a run in an image; give the task an image, or drop the limit.'
      : 'Run as root, or in a cgroup delegated to you (systemd-run --user --scope -p Delegate=yes delta batch ...).';
  return `warning: the ${line.limit} limit is NOT enforced for the runs of ${line.tasks.length === 1 ? 'task' : 'tasks'} ${tasks}: ${line.reason}. ${fix}`;
}
