import { cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { diskWrite, makeDirectory } from '@delta/errors';
import type { Task } from './dataset.js';

/** Fills a run's workspace with what its task starts from: the `workspace` directory copied, then `files`. */
export function prepareWorkspace(workDir: string, task: Task): void {
  makeDirectory(workDir);
  if (task.workspace !== undefined) {
    // A .delta/ in the source is another workspace's runs, not part of the task.
    cpSync(task.workspace, workDir, {
      recursive: true,
      filter: (source) => !relative(task.workspace!, source).split(sep).includes('.delta'),
    });
  }
  for (const [path, content] of Object.entries(task.files ?? {})) {
    const file = join(workDir, path);
    makeDirectory(dirname(file));
    diskWrite(file, () => writeFileSync(file, content));
  }
}

/** Empties a workspace but for its runs (.delta/), for a new attempt at the task. */
export function resetWorkspace(workDir: string, task: Task): void {
  for (const entry of readdirSync(workDir)) {
    if (entry !== '.delta') rmSync(join(workDir, entry), { recursive: true, force: true });
  }
  prepareWorkspace(workDir, task);
}
