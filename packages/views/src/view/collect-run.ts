import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { readMetadata, type InvocationMetadata, type JournalEvent, type RunMetadata, type RunPaths } from '@delta/journal';
import {
  readInvocationMetadata,
  readInvocationRequestBytes,
  readInvocationResponseText,
  readRunJournal,
  toolExecutionFiles,
} from '../inspect/run-records.js';

/** Each embedded input or output is cut at this size; the page then names the file that has it whole. */
export const EMBED_LIMIT_BYTES = 1024 * 1024;

export interface EmbeddedText {
  text: string;
  /** The whole size in bytes, when the text was cut. */
  truncatedFrom?: number;
  file: string;
}

export interface InvocationView {
  id: string;
  metadata?: InvocationMetadata;
  request?: EmbeddedText;
  response?: EmbeddedText;
}

export interface ExecutionView {
  ref: string;
  command?: string;
  exitCode?: string;
  durationMs?: number;
  stdout: EmbeddedText;
  stderr: EmbeddedText;
}

/** Everything `delta view` shows, read from the run's control plane. */
export interface RunView {
  paths: RunPaths;
  metadata?: RunMetadata;
  events: JournalEvent[];
  invocations: Map<string, InvocationView>;
  executions: Map<string, ExecutionView>;
}

function embedFile(file: string, label: string): EmbeddedText {
  if (!existsSync(file)) return { text: '', file: label };
  const size = statSync(file).size;
  const length = Math.min(size, EMBED_LIMIT_BYTES);
  const buffer = Buffer.alloc(length);
  const descriptor = openSync(file, 'r');
  try {
    readSync(descriptor, buffer, 0, length, 0);
  } finally {
    closeSync(descriptor);
  }
  return { text: buffer.toString('utf8'), file: label, ...(size > length ? { truncatedFrom: size } : {}) };
}

function embedText(text: string | undefined, file: string): EmbeddedText | undefined {
  if (text === undefined) return undefined;
  const bytes = Buffer.byteLength(text);
  if (bytes <= EMBED_LIMIT_BYTES) return { text, file };
  return { text: Buffer.from(text).subarray(0, EMBED_LIMIT_BYTES).toString('utf8'), file, truncatedFrom: bytes };
}

export function collectRun(paths: RunPaths): RunView {
  const events = readRunJournal(paths);
  let metadata: RunMetadata | undefined;
  try {
    metadata = readMetadata(paths.metadata);
  } catch {
    metadata = undefined;
  }
  const invocations = new Map<string, InvocationView>();
  const executions = new Map<string, ExecutionView>();
  for (const event of events) {
    if (event.type === 'THOUGHT') {
      const id = event.llm_invocation_ref;
      const request = readInvocationRequestBytes(paths, id);
      const invocationMetadata = readInvocationMetadata(paths, id);
      const requestText = embedText(request?.toString('utf8'), `io/invocations/${id}/request.json`);
      const response = embedText(readInvocationResponseText(paths, id), `io/invocations/${id}/response.json`);
      invocations.set(id, {
        id,
        ...(invocationMetadata ? { metadata: invocationMetadata } : {}),
        ...(requestText ? { request: requestText } : {}),
        ...(response ? { response } : {}),
      });
    }
    if (event.type === 'ACTION_RESULT' && event.execution_ref) {
      const files = toolExecutionFiles(paths, event.execution_ref);
      if (!files) continue;
      executions.set(event.execution_ref, {
        ref: files.ref,
        ...(files.command === undefined ? {} : { command: files.command }),
        ...(files.exitCode === undefined ? {} : { exitCode: files.exitCode }),
        ...(files.durationMs === undefined ? {} : { durationMs: files.durationMs }),
        stdout: embedFile(files.stdout, `io/tool_executions/${files.ref}/stdout.log`),
        stderr: embedFile(files.stderr, `io/tool_executions/${files.ref}/stderr.log`),
      });
    }
  }
  return { paths, ...(metadata ? { metadata } : {}), events, invocations, executions };
}
