import type { ActionResultEvent, RunPaths } from '@delta/journal';
import { listInvocationIds, readRunJournal, toolExecutionFiles } from './run-records.js';

/** What a key on the command line names, or why it names nothing (the message and its fix). */
export type Found<T> = { found: T } | { problem: string; hint: string };

/** The model call `key` names in a run: an invocation id, or its number from 1 in the order they were made. */
export function findInvocation(paths: RunPaths, key: string): Found<string> {
  const ids = listInvocationIds(paths);
  if (ids.includes(key)) return { found: key };
  const number = Number(key);
  if (Number.isInteger(number) && number >= 1 && number <= ids.length) return { found: ids[number - 1]! };
  return {
    problem: `The run ${paths.runId} has no invocation "${key}".`,
    hint:
      ids.length === 0
        ? 'The run made no model calls.'
        : `Give a number from 1 to ${ids.length}, or an id: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}.`,
  };
}

/**
 * The tool call `key` names: an execution reference (unique in a run), an action id, or a number. An id
 * that names several executions (ids can repeat across `delta continue`) names none, with the choices;
 * a call that never ran (a hook blocked it, its arguments were refused) has a result and no `ref`.
 */
export function findAction(paths: RunPaths, key: string): Found<{ ref?: string; result?: ActionResultEvent }> {
  const results = readRunJournal(paths).filter((event): event is ActionResultEvent => event.type === 'ACTION_RESULT');
  const executed = results.filter((event) => event.execution_ref);
  const byId = results.filter((event) => event.action_id === key);
  const ran = byId.filter((event) => event.execution_ref);
  // The number of a tool execution is unique in a run; an id the model used again is not.
  if (ran.length > 1) {
    const choices = ran.map((event) => `${executed.indexOf(event) + 1} (iteration ${event.iteration})`);
    return {
      problem: `The id "${key}" names ${ran.length} tool executions in run ${paths.runId}: the model used it again after a delta continue.`,
      hint: `Give its number instead: ${choices.join(' or ')}. \`delta show action N\` counts the run's tool executions in order.`,
    };
  }
  const byRef = results.find((event) => event.execution_ref === key);
  if (byRef) return { found: { ref: key, result: byRef } };
  if (byId.length > 0) return { found: { result: byId.at(-1)! } };
  const number = Number(key);
  if (Number.isInteger(number) && number >= 1 && number <= executed.length)
    return { found: { ref: executed[number - 1]!.execution_ref!, result: executed[number - 1]! } };
  if (toolExecutionFiles(paths, key)) return { found: { ref: key } };
  return {
    problem: `The run ${paths.runId} has no tool execution "${key}".`,
    hint:
      executed.length === 0
        ? 'No tool ran in this run (see `delta log`).'
        : `Give an action id (e.g. ${executed.at(-1)!.action_id}) or a number from 1 to ${executed.length}; \`delta log\` shows them.`,
  };
}
