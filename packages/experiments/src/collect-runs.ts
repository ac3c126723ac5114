import { resolve } from 'node:path';
import type { JournalEvent, RunStatus } from '@delta/journal';
import type { BatchDefinition } from './batch-definition.js';
import { readGrade } from './grade.js';
import { batchKeys, runDirectoryOf } from './open-batch.js';
import { readRunOnDisk } from './run-record.js';
import { readBatchOrFail } from './read-batch.js';

/** One run of a batch as a report sees it. */
export interface BatchRunRow {
  task: string;
  model: string;
  repeat: number;
  work_dir: string;
  run_id: string | null;
  /** By the journal; NOT_STARTED when the batch has not reached it, RUNNING when its engine was killed. */
  status: RunStatus | 'NOT_STARTED';
  iterations: number;
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens: number;
  cost: number | null;
  currency: string | null;
  /** Time the engine spent on it: the sum of its invocations, ENGINE_START to ENGINE_END. */
  duration_ms: number | null;
  score: number | null;
  passed: boolean | null;
  grade_error: string | null;
}

/** The time between each ENGINE_START and the ENGINE_END that follows it, summed. */
function engineTime(events: readonly JournalEvent[]): number | null {
  let total = 0;
  let started: number | undefined;
  let ended = false;
  for (const event of events) {
    if (event.type === 'ENGINE_START') started = Date.parse(event.timestamp);
    else if (event.type === 'ENGINE_END' && started !== undefined) {
      total += Date.parse(event.timestamp) - started;
      started = undefined;
      ended = true;
    }
  }
  return ended ? total : null;
}

/** Every run of the batch in OUT, from its files alone (no agent is loaded, nothing is written). */
export function collectBatchRuns(outDirectory: string): { definition: BatchDefinition; rows: BatchRunRow[] } {
  const out = resolve(outDirectory);
  const definition = readBatchOrFail(out);
  const rows = batchKeys(definition).map((key): BatchRunRow => {
    const workDir = runDirectoryOf({ out, definition }, key);
    const base: BatchRunRow = {
      ...key,
      work_dir: workDir,
      run_id: null,
      status: 'NOT_STARTED',
      iterations: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      cached_tokens: 0,
      cost: null,
      currency: null,
      duration_ms: null,
      score: null,
      passed: null,
      grade_error: null,
    };
    const found = readRunOnDisk(workDir);
    if (found.kind !== 'run') return base;
    const { metadata } = found;
    const grade = readGrade(found.paths.runDir);
    const current = grade !== undefined && grade.run_id === found.runId ? grade : undefined;
    return {
      ...base,
      run_id: found.runId,
      status: found.status,
      iterations: metadata.iterations,
      prompt_tokens: metadata.usage?.prompt_tokens ?? 0,
      completion_tokens: metadata.usage?.completion_tokens ?? 0,
      cached_tokens: metadata.usage?.cached_tokens ?? 0,
      cost: metadata.estimated_cost?.amount ?? null,
      currency: metadata.estimated_cost?.currency ?? null,
      duration_ms: engineTime(found.events),
      score: current?.score ?? null,
      passed: current?.passed ?? null,
      grade_error: current?.error ?? null,
    };
  });
  return { definition, rows };
}
