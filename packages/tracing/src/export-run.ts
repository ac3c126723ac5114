import { join } from 'node:path';
import { safeParseJson } from '@delta/errors';
import { readJournal, readRunRecord, SMALL_RECORD_MAX_BYTES } from '@delta/journal';
import { OtlpSender, type OtlpTarget } from './otlp-sender.js';
import { runSpans, type SpanOptions, type SpanRecord } from './run-spans.js';

/** Where a recorded run is: `runPaths(workDir, runId)` of @delta/journal gives both. */
export interface RecordedRunFiles {
  journal: string;
  invocationsDir: string;
}

/**
 * A model call's duration from io/invocations/<ref>/metadata.json, for journals whose THOUGHT events lack it.
 * The file is under .delta/, so read as hostile: a FIFO, a link out or a file that is not JSON gives none.
 */
function recordedDuration(invocationsDir: string): SpanOptions['callDuration'] {
  return (ref) => {
    const file = join(invocationsDir, ref, 'metadata.json');
    let bytes: Buffer | undefined;
    try {
      bytes = readRunRecord(file, SMALL_RECORD_MAX_BYTES);
    } catch {
      return undefined;
    }
    const parsed = bytes && safeParseJson(bytes.toString('utf8'), file);
    if (!parsed?.success || parsed.data === null || typeof parsed.data !== 'object') return undefined;
    const duration = (parsed.data as { duration_ms?: unknown }).duration_ms;
    return typeof duration === 'number' ? duration : undefined;
  };
}

/** The spans of a recorded run, from its journal. */
export function spansOfRun(run: RecordedRunFiles, options: { content?: boolean } = {}): SpanRecord[] {
  return runSpans(readJournal(run.journal), { content: options.content === true, callDuration: recordedDuration(run.invocationsDir) });
}

/** `delta export otel`: sends a recorded run's spans to an OTLP/HTTP collector. */
export async function exportRun(run: RecordedRunFiles, target: OtlpTarget & { content?: boolean }): Promise<{ url: string; sent: number }> {
  const sender = new OtlpSender(target);
  sender.send(spansOfRun(run, target));
  const sent = await sender.close();
  return { url: sender.url, sent };
}
