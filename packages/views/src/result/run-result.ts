import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunResult } from '@delta/engine';
import { formatError } from '@delta/errors';
import { parseJson, readMetadata } from '@delta/journal';

/**
 * The version of the `--format json` object; docs/schemas/run-result.v2.schema.json describes it. Version 2.0
 * is version 1 plus the names v1.10's RunResult 2.0 gave the same facts (result, metrics, metadata,
 * interaction), so that scripts written for either read it; "2.0" is v1.10's own spelling.
 */
export const RUN_RESULT_SCHEMA_VERSION = '2.0';

export interface PendingQuestion {
  prompt: string;
  input_type: string;
  sensitive: boolean;
  request_id: string | null;
  response_file: string;
}

/** The one object `--format json` prints when a run stops. */
export interface RunResultObject {
  schema_version: typeof RUN_RESULT_SCHEMA_VERSION;
  run_id: string;
  agent_name: string;
  agent_home: string;
  status: RunResult['status'];
  exit_code: number;
  final_answer: string | null;
  question: PendingQuestion | null;
  reason: string | null;
  error: string | null;
  iterations: number;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  estimated_cost: { amount: number; currency: string } | null;
  started_at: string;
  ended_at: string | null;
  duration_ms: number;
  work_dir: string;
  run_dir: string;
  journal: string;
  /** v1.10's name for final_answer: the answer when COMPLETED, else null. */
  result: string | null;
  /** v1.10's metrics: model calls, and the run's span (its end is now while it waits for input). */
  metrics: { iterations: number; duration_ms: number; start_time: string; end_time: string };
  /** v1.10's metadata. */
  metadata: { agent_name: string; workspace_path: string };
  /** v1.10's name for the pending question, without where the answer goes (see question). */
  interaction: { prompt: string; input_type: string; sensitive: boolean } | null;
}

/** ask_human's question, from `interaction/request.json`, with where the answer goes. */
function pendingQuestion(result: RunResult): PendingQuestion | null {
  if (result.status !== 'WAITING_FOR_INPUT') return null;
  const requestFile = join(result.paths.interactionDir, 'request.json');
  const responseFile = join(result.paths.interactionDir, 'response.txt');
  if (!existsSync(requestFile))
    return { prompt: result.reason ?? '', input_type: 'text', sensitive: false, request_id: null, response_file: responseFile };
  const request = parseJson(readFileSync(requestFile, 'utf8'), requestFile) as Record<string, unknown>;
  return {
    prompt: String(request.prompt ?? ''),
    input_type: String(request.input_type ?? 'text'),
    sensitive: request.sensitive === true,
    request_id: typeof request.request_id === 'string' ? request.request_id : null,
    response_file: responseFile,
  };
}

/** The run's result with its totals from metadata.json; `durationMs` is how long this command ran. */
export function runResultObject(result: RunResult, durationMs: number, now: Date = new Date()): RunResultObject {
  const metadata = readMetadata(result.paths.metadata);
  const question = pendingQuestion(result);
  const finalAnswer = result.status === 'COMPLETED' ? (result.finalAnswer ?? '') : null;
  const endTime = metadata.end_time ?? now.toISOString();
  return {
    schema_version: RUN_RESULT_SCHEMA_VERSION,
    run_id: result.runId,
    agent_name: metadata.agent_name,
    agent_home: metadata.agent_home,
    status: result.status,
    exit_code: result.exitCode,
    final_answer: finalAnswer,
    question,
    reason: result.reason ?? null,
    error: result.status === 'FAILED' ? formatError(result.error ?? result.reason) : null,
    iterations: metadata.iterations,
    usage: metadata.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    estimated_cost: metadata.estimated_cost ? { amount: metadata.estimated_cost.amount, currency: metadata.estimated_cost.currency } : null,
    started_at: metadata.created_at,
    ended_at: metadata.end_time,
    duration_ms: Math.round(durationMs),
    work_dir: result.workDir,
    run_dir: result.paths.runDir,
    journal: result.paths.journal,
    result: finalAnswer,
    metrics: {
      iterations: metadata.iterations,
      duration_ms: Math.max(0, Date.parse(endTime) - Date.parse(metadata.created_at)),
      start_time: metadata.created_at,
      end_time: endTime,
    },
    metadata: { agent_name: metadata.agent_name, workspace_path: result.workDir },
    interaction: question === null ? null : { prompt: question.prompt, input_type: question.input_type, sensitive: question.sensitive },
  };
}
