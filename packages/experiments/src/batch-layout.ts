import { join } from 'node:path';

/** One run of a batch: a task, a model and a repeat (1-based). */
export interface BatchRunKey {
  task: string;
  model: string;
  repeat: number;
}

/** Where the batch keeps what is not a run: its definition (task ids cannot start with `.`). */
export function batchControlDirectory(out: string): string {
  return join(out, '.batch');
}

export function batchDefinitionFile(out: string): string {
  return join(batchControlDirectory(out), 'definition.json');
}

/**
 * A model name made safe as a directory name: `openai/gpt-4o` becomes `openai_gpt-4o`. The name itself is
 * kept in the batch definition, beside its directory.
 */
export function modelDirectoryName(model: string): string {
  const safe = model.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return safe === '' ? '_' : safe.slice(0, 120);
}

/** The run's workspace: `OUT/<task>/<model directory>/<k>/`. */
export function batchRunDirectory(out: string, task: string, modelDirectory: string, repeat: number): string {
  return join(out, task, modelDirectory, String(repeat));
}

/** A key as people read it: `task-1 / gpt-4o / 2`. */
export function describeKey(key: BatchRunKey): string {
  return `${key.task} / ${key.model} / ${key.repeat}`;
}
