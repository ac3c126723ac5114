import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '@delta/journal';
import { OtlpSender, type OtlpTarget } from './otlp-sender.js';
import { runSpans, type SpanOptions, type SpanRecord } from './run-spans.js';

/** Where a recorded run is: `runPaths(workDir, runId)` of @delta/journal gives both. */
export interface RecordedRunFiles {
  journal: string;
  invocationsDir: string;
}

/** A model call's duration from io/invocations/<ref>/metadata.json, for journals whose THOUGHT events lack it. */
function recordedDuration(invocationsDir: string): SpanOptions['callDuration'] {
  return (ref) => {
    try {
      const metadata = JSON.parse(readFileSync(join(invocationsDir, ref, 'metadata.json'), 'utf8')) as { duration_ms?: unknown };
      return typeof metadata.duration_ms === 'number' ? metadata.duration_ms : undefined;
    } catch {
      return undefined;
    }
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
