import { resolve } from 'node:path';
import type { JournalEvent, RunStatus } from '@delta/journal';
import type { BatchDefinition } from './batch-definition.js';
import type { Grade } from './grade-schema.js';
import { readGrades } from './grade-store.js';
import { type GraderChoice, type GraderSummary, selectGrader } from './select-grader.js';
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
  /** Why the run ended as it did (metadata.json's status_reason): what a FAILED run died of. */
  reason: string | null;
  /** The limits the run ran into (metadata.json's limits_hit: `memory`, `processes`, ...); empty when none. */
  limits_hit: string[];
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

export interface CollectOptions {
  /**
   * The grader whose grades the rows carry: its command or its hash (a prefix will do); by default the batch's
   * own (its --grader, or agent.yaml's), else the one that graded last.
   */
  grader?: string | undefined;
}

export interface CollectedBatch {
  definition: BatchDefinition;
  rows: BatchRunRow[];
  /** The grader whose grades the rows carry; null when no run is graded. */
  grader: GraderSummary | null;
  /** Why that grader: asked for, the batch's own, or the latest (the batch has none of its own that graded a run). */
  grader_choice: GraderChoice | null;
  /** Every grader that graded a run of the batch, the latest first. */
  graders: GraderSummary[];
}

/** Every run of the batch in OUT, from its files alone (no agent is loaded, nothing is written). */
export function collectBatchRuns(outDirectory: string, options: CollectOptions = {}): CollectedBatch {
  const out = resolve(outDirectory);
  const definition = readBatchOrFail(out);
  const gradesByRun: Map<string, Grade>[] = [];
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
      reason: null,
      limits_hit: [],
    };
    const found = readRunOnDisk(workDir);
    // A grade of an earlier run in the same workspace (a --retry-failed) is not this run's.
    gradesByRun.push(
      found.kind !== 'run' ? new Map() : new Map([...readGrades(found.paths.runDir)].filter(([, grade]) => grade.run_id === found.runId)),
    );
    if (found.kind !== 'run') return base;
    const { metadata } = found;
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
      reason: metadata.status_reason ?? null,
      limits_hit: metadata.limits_hit ?? [],
    };
  });
  const { grader, graders, choice } = selectGrader(gradesByRun, options.grader, out, definition.grader);
  const scored = rows.map((row, index) => {
    const grade = grader === null ? undefined : gradesByRun[index]!.get(grader.hash);
    return grade === undefined ? row : { ...row, score: grade.score, passed: grade.passed, grade_error: grade.error ?? null };
  });
  return { definition, rows: scored, grader, grader_choice: choice, graders };
}
