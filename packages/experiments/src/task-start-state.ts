import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, renameSync, rmSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { compareManifests, workspaceManifest } from '@delta/engine';
import { ConfigurationError, makeDirectory } from '@delta/errors';
import { batchControlDirectory, batchDefinitionFile } from './batch-layout.js';
import { type BatchDefinition, readBatchDefinition } from './batch-definition.js';
import type { Task } from './dataset.js';
import { copyDirectoryNoFollow } from './no-follow-write.js';
import { openBatchTasks } from './open-batch.js';
import { prepareWorkspace } from './prepare-workspace.js';

const withoutRuns = (name: string) => name === '.delta';

/** Where a batch keeps what each task's runs start from: `OUT/.batch/start/<task>/`, a copy of its files. */
export function taskStartDirectory(out: string, taskId: string): string {
  return join(batchControlDirectory(out), 'start', taskId);
}

/**
 * Records a task's start state from the workspace just prepared for one of its runs (its `files` and its
 * `workspace` directory's copy), the first time a run of the task starts. Later runs of the task must start
 * the same: a `workspace` directory or file changed since is refused (BATCH_CHANGED) with the paths that differ,
 * so that no batch mixes two start states of a task and every run can be replayed from the record.
 */
export function recordTaskStartState(out: string, task: Task, workDir: string): void {
  if (task.files === undefined && task.workspace === undefined) return;
  const recorded = taskStartDirectory(out, task.id);
  if (!existsSync(recorded)) {
    // Copied beside, then renamed: a run of the same task starting at the same time finds it whole or absent.
    const temporary = join(batchControlDirectory(out), 'start', `.${randomUUID()}.tmp`);
    makeDirectory(temporary);
    try {
      copyDirectoryNoFollow(workDir, temporary, withoutRuns);
      renameSync(temporary, recorded);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  }
  const comparison = compareManifests(workspaceManifest(recorded), workspaceManifest(workDir));
  if (comparison.same) return;
  const list = (label: string, paths: string[]) => (paths.length === 0 ? [] : [`${label}: ${paths.slice(0, 5).join(', ')}`]);
  const differences = [...list('changed', comparison.changed), ...list('new', comparison.extra), ...list('gone', comparison.missing)];
  throw new ConfigurationError(
    `The task ${task.id} no longer starts as its runs in ${out} started (${differences.join('; ')})${task.workspace ? `: its workspace directory ${task.workspace} changed` : ''}.`,
    {
      code: 'BATCH_CHANGED',
      file: task.workspace ?? recorded,
      hint: `Restore the task's files as they were (a copy is in ${recorded}), or start a new batch with a new --out.`,
    },
  );
}

/** The batch in which `workDir` is a run's directory (`OUT/<task>/<model>/<k>`), and the task; undefined for any other workspace. */
export function batchOfRunDirectory(workDir: string): { out: string; definition: BatchDefinition; task: string } | undefined {
  const run = resolve(workDir);
  const out = resolve(run, '..', '..', '..');
  // Looked for above any workspace replayed: only a regular file there is a batch's definition.
  if (lstatSync(batchDefinitionFile(out), { throwIfNoEntry: false, bigint: true })?.isFile() !== true) return undefined;
  let definition: BatchDefinition | undefined;
  try {
    definition = readBatchDefinition(out);
  } catch {
    return undefined;
  }
  const [task, model, repeat, ...more] = relative(out, run).split(sep);
  if (!definition || task === undefined || more.length > 0 || !/^\d+$/.test(repeat ?? '')) return undefined;
  if (!definition.task_ids.includes(task) || !definition.models.some((candidate) => candidate.directory === model)) return undefined;
  return { out, definition, task };
}

/**
 * When `workDir` is a run directory of a batch (`OUT/<task>/<model>/<k>`), what fills a new workspace with
 * the start state its task's runs had (for a replay or a fork of the run); undefined for any other workspace.
 */
export function batchRunStartState(workDir: string): ((into: string) => void) | undefined {
  const batch = batchOfRunDirectory(workDir);
  if (batch === undefined) return undefined;
  const { out, task } = batch;
  const recorded = taskStartDirectory(out, task);
  if (existsSync(recorded)) return (into) => copyDirectoryNoFollow(recorded, into, withoutRuns);
  // A batch recorded before start states were kept: the task as its TASKS file has it (refused if that file changed).
  return (into) => {
    const found = openBatchTasks(out).tasks.get(task);
    if (found) prepareWorkspace(into, found);
  };
}
