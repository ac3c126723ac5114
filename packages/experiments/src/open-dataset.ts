import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigurationError } from '@delta/errors';
import { sha256 } from './batch-definition.js';
import { parseTasks, readTasksText, type Task } from './dataset.js';
import { harborDatasetSha256, harborTaskHashes } from './harbor-task-hash.js';
import { readHarborTasks } from './harbor-tasks.js';
import { type LoadedImageMap, readImageMap } from './image-map.js';

/** A batch's dataset, opened: what its definition records of it, and its tasks, read and checked on demand. */
export interface OpenedDataset {
  /** The TASKS file or the directory of Harbor tasks, absolute. */
  path: string;
  /** The sha256 of the TASKS file's text, or over every Harbor task's files (harbor-task-hash.ts). */
  sha256: string;
  /** For a directory: each task's own sha256, by id, so that a change names the task. */
  taskSha256?: Record<string, string>;
  /** The image map (`--image-map`) the tasks' images come from. */
  imageMap?: LoadedImageMap;
  /** The tasks, every one checked (DATASET_INVALID listing every problem otherwise). */
  tasks(): Task[];
}

/**
 * Opens a dataset: a TASKS file (JSONL), or a directory of Harbor task directories (with `imageMap`, a
 * file that gives tasks their images). Its hash is taken before its tasks are read, so that a dataset
 * changed under a batch is told as such (BATCH_CHANGED) rather than as a task it may now fail to be.
 */
export function openDataset(path: string, options: { imageMap?: string | undefined } = {}): OpenedDataset {
  const resolved = resolve(path);
  if (existsSync(resolved) && statSync(resolved).isDirectory()) {
    const imageMap = options.imageMap === undefined ? undefined : readImageMap(options.imageMap);
    const taskSha256 = harborTaskHashes(resolved);
    return {
      path: resolved,
      sha256: harborDatasetSha256(taskSha256),
      taskSha256,
      ...(imageMap === undefined ? {} : { imageMap }),
      tasks: () => readHarborTasks(resolved, imageMap === undefined ? {} : { imageMap }),
    };
  }
  if (options.imageMap !== undefined) {
    throw new ConfigurationError(`--image-map gives images to Harbor task directories, but ${resolved} is a TASKS file.`, {
      code: 'USAGE',
      field: '--image-map',
      hint: 'On a TASKS line, give the task its image with "image": REF; or pass a directory of Harbor task directories.',
    });
  }
  const text = readTasksText(resolved);
  return { path: resolved, sha256: sha256(text), tasks: () => parseTasks(text, resolved) };
}
