import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeltaError } from '@delta/errors';
import {
  invocationDirectory,
  parseJson,
  readInvocationRequestBytes as readRecordedRequest,
  readJournal,
  type InvocationMetadata,
  type JournalEvent,
  type RunPaths,
} from '@delta/journal';

/**
 * The exact request body sent to the model (io/invocations stores it whole or as a delta; @delta/journal
 * rebuilds it), or undefined when none was recorded. The one place the CLI reads requests.
 */
export function readInvocationRequestBytes(paths: RunPaths, invocationId: string): Buffer | undefined {
  try {
    return readRecordedRequest(paths, invocationId);
  } catch (error) {
    if (DeltaError.isInstance(error) && error.code === 'INVOCATION_REQUEST_MISSING') return undefined;
    throw error;
  }
}

export function readInvocationResponseText(paths: RunPaths, invocationId: string): string | undefined {
  const file = join(invocationDirectory(paths, invocationId), 'response.json');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

export function readInvocationMetadata(paths: RunPaths, invocationId: string): InvocationMetadata | undefined {
  const file = join(invocationDirectory(paths, invocationId), 'metadata.json');
  if (!existsSync(file)) return undefined;
  try {
    return parseJson(readFileSync(file, 'utf8'), file) as InvocationMetadata;
  } catch {
    return undefined;
  }
}

/** Invocation ids of a run in the order they were made (ids start with the zero-padded iteration). */
export function listInvocationIds(paths: RunPaths): string[] {
  if (!existsSync(paths.invocationsDir)) return [];
  const ids = readdirSync(paths.invocationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const started = (id: string) => readInvocationMetadata(paths, id)?.started_at ?? '';
  return ids.sort((a, b) => a.localeCompare(b) || started(a).localeCompare(started(b)));
}

/** The files of one tool execution record. */
export interface ToolExecutionFiles {
  ref: string;
  dir: string;
  command?: string;
  exitCode?: string;
  durationMs?: number;
  stdout: string;
  stderr: string;
}

function readTrimmed(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8').replace(/\n$/, '') : undefined;
}

export function toolExecutionFiles(paths: RunPaths, ref: string): ToolExecutionFiles | undefined {
  const dir = join(paths.toolExecutionsDir, ref);
  if (!existsSync(dir)) return undefined;
  const duration = readTrimmed(join(dir, 'duration_ms.txt'));
  const command = readTrimmed(join(dir, 'command.txt'));
  const exitCode = readTrimmed(join(dir, 'exit_code.txt'));
  return {
    ref,
    dir,
    ...(command === undefined ? {} : { command }),
    ...(exitCode === undefined ? {} : { exitCode }),
    ...(duration === undefined || duration === '' ? {} : { durationMs: Number(duration) }),
    stdout: join(dir, 'stdout.log'),
    stderr: join(dir, 'stderr.log'),
  };
}

/** A run's journal, tolerating a last line still being written by a live engine. */
export function readRunJournal(paths: RunPaths): JournalEvent[] {
  return readJournal(paths.journal, { tolerateTornTail: true });
}
