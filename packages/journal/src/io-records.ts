import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { diskWrite, makeDirectory } from '@delta/errors';
import { type ProcessFile, readProcessFile } from '@delta/process-identity';
import type { RunPaths } from './layout.js';
import type { TokenUsage } from './events.js';

/** The files of one tool execution record: `io/tool_executions/<ref>/`. */
export interface ToolExecutionRecord {
  /** The directory name, recorded as `execution_ref` on ACTION_RESULT. */
  ref: string;
  dir: string;
  command: string;
  stdout: string;
  stderr: string;
  exitCode: string;
  duration: string;
  /** `process.json` (a ProcessFile): the pid and start time of the running tool, so a resumed run can stop an orphan. */
  process: string;
}

function safeName(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120);
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? 'action' : cleaned;
}

/**
 * Creates the record directory for one tool call, named after its action id. Some providers reuse call
 * ids across responses, so a taken name gets a numeric suffix instead of overwriting an earlier record.
 */
export function createToolExecutionRecord(paths: RunPaths, actionId: string, commandLine: string): ToolExecutionRecord {
  const base = safeName(actionId);
  let ref = base;
  for (let suffix = 2; existsSync(join(paths.toolExecutionsDir, ref)); suffix += 1) ref = `${base}-${suffix}`;
  const dir = join(paths.toolExecutionsDir, ref);
  makeDirectory(dir);
  const record = recordFiles(ref, dir);
  diskWrite(record.command, () => writeFileSync(record.command, `${commandLine}\n`));
  return record;
}

function recordFiles(ref: string, dir: string): ToolExecutionRecord {
  return {
    ref,
    dir,
    command: join(dir, 'command.txt'),
    stdout: join(dir, 'stdout.log'),
    stderr: join(dir, 'stderr.log'),
    exitCode: join(dir, 'exit_code.txt'),
    duration: join(dir, 'duration_ms.txt'),
    process: join(dir, 'process.json'),
  };
}

/**
 * The records of an action id whose tool started but never finished (no exit_code.txt): what a crash
 * left running. Each comes with its process, when process.json was written.
 */
export function unfinishedToolExecutions(paths: RunPaths, actionId: string): Array<{ record: ToolExecutionRecord; process?: ProcessFile }> {
  const base = safeName(actionId);
  if (!existsSync(paths.toolExecutionsDir)) return [];
  return readdirSync(paths.toolExecutionsDir)
    .filter((name) => name === base || (name.startsWith(`${base}-`) && /^\d+$/.test(name.slice(base.length + 1))))
    .map((name) => recordFiles(name, join(paths.toolExecutionsDir, name)))
    .filter((record) => !existsSync(record.exitCode))
    .map((record) => {
      // Missing or half-written (its writer killed at once): no process that could be identified.
      const process = readProcessFile(record.process);
      return process ? { record, process } : { record };
    });
}

export function finishToolExecutionRecord(record: ToolExecutionRecord, exitCode: number | null, durationMs: number): void {
  diskWrite(record.exitCode, () => writeFileSync(record.exitCode, `${exitCode ?? ''}\n`));
  diskWrite(record.duration, () => writeFileSync(record.duration, `${Math.round(durationMs)}\n`));
}

export interface InvocationMetadata {
  invocation_id: string;
  iteration: number;
  model: string;
  started_at: string;
  duration_ms: number;
  status: 'SUCCESS' | 'FAILED';
  stream: boolean;
  /** As the server reported it, with cached and reasoning tokens when it gave them. */
  token_usage?: TokenUsage;
  error?: string;
  /**
   * Large texts of response.json kept once, in the journal's THOUGHT (`llm_invocation_ref` = this
   * invocation), and replaced in response.json by a marker: each text's place there, its length in bytes,
   * and its place in the THOUGHT.
   */
  stored_in_journal?: Array<{ path: string; bytes: number; journal: string }>;
}

/** An invocation id `<iteration>_<random>`: sortable, and unique when an iteration is retried. */
export function createInvocationId(iteration: number): string {
  return `${String(iteration).padStart(4, '0')}_${randomBytes(3).toString('hex')}`;
}

export function invocationDirectory(paths: RunPaths, invocationId: string): string {
  return join(paths.invocationsDir, invocationId);
}

/** `response.sse`: a streamed answer's body as it came, byte for byte, beside the assembled response.json. */
export const RESPONSE_STREAM_FILE = 'response.sse';

/**
 * `response.raw`: a body the engine could not read as a chat completion (not JSON, nested too deep), as it
 * came, in place of response.json.
 */
export const RESPONSE_RAW_FILE = 'response.raw';

export function writeInvocationResult(
  paths: RunPaths,
  invocationId: string,
  response: unknown,
  metadata: InvocationMetadata,
  rawResponse?: string,
): void {
  const dir = invocationDirectory(paths, invocationId);
  makeDirectory(dir);
  const responseFile = join(dir, 'response.json');
  if (response !== undefined) diskWrite(responseFile, () => writeFileSync(responseFile, `${JSON.stringify(response, null, 2)}\n`));
  const rawFile = join(dir, RESPONSE_RAW_FILE);
  if (rawResponse !== undefined) diskWrite(rawFile, () => writeFileSync(rawFile, rawResponse));
  const metadataFile = join(dir, 'metadata.json');
  diskWrite(metadataFile, () => writeFileSync(metadataFile, `${JSON.stringify(metadata, null, 2)}\n`));
}
