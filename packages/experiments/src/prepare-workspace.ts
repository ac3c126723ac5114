import { readdirSync, rmSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { makeDirectory } from '@delta/errors';
import type { Task } from './dataset.js';
import { copyDirectoryNoFollow, writeFileNoFollow } from './no-follow-write.js';

/**
 * Fills a run's workspace with what its task starts from: the `workspace` directory copied (its symbolic
 * links as links, never followed), then `files`, each written without following a link at any component.
 */
export function prepareWorkspace(workDir: string, task: Task): void {
  makeDirectory(workDir);
  // A .delta/ in the source is another workspace's runs, not part of the task.
  if (task.workspace !== undefined) copyDirectoryNoFollow(task.workspace, workDir, (name) => name === '.delta');
  for (const [path, content] of Object.entries(task.files ?? {})) writeFileNoFollow(workDir, normalize(path), content);
}

/** Empties a workspace but for its runs (.delta/), for a new attempt at the task. */
export function resetWorkspace(workDir: string, task: Task): void {
  for (const entry of readdirSync(workDir)) {
    if (entry !== '.delta') rmSync(join(workDir, entry), { recursive: true, force: true });
  }
  prepareWorkspace(workDir, task);
}
