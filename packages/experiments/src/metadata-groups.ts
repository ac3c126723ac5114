import { ConfigurationError } from '@delta/errors';
import { openBatchTasks } from './open-batch.js';

/** The value tasks without the field are grouped under. */
export const NO_VALUE = '(none)';

/** `metadata.KEY` or `KEY` (a dotted path reaches into objects): the path inside a task's metadata. */
export function metadataPath(by: string): string[] {
  const path = by.replace(/^metadata\./, '').split('.');
  if (by.trim() === '' || path.some((part) => part === '')) {
    throw new ConfigurationError(`--by "${by}" names no metadata field.`, {
      code: 'USAGE',
      field: '--by',
      hint: 'Name a field of the tasks\' "metadata": for example --by metadata.difficulty.',
    });
  }
  return path;
}

function valueAt(metadata: Record<string, unknown> | undefined, path: readonly string[]): string {
  let value: unknown = metadata;
  for (const part of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return NO_VALUE;
    value = (value as Record<string, unknown>)[part];
  }
  if (value === undefined || value === null) return NO_VALUE;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The batch's task ids grouped by a metadata field, groups in order of their first task. Reads the TASKS
 * file the batch recorded (BATCH_CHANGED when it changed since).
 */
export function taskGroups(out: string, by: string): { key: string; groups: Map<string, string[]> } {
  const path = metadataPath(by);
  const { definition, tasks } = openBatchTasks(out);
  const groups = new Map<string, string[]>();
  for (const id of definition.task_ids) {
    const value = valueAt(tasks.get(id)?.metadata, path);
    groups.set(value, [...(groups.get(value) ?? []), id]);
  }
  return { key: `metadata.${path.join('.')}`, groups };
}
