import type { JournalEvent } from '@delta/journal';
import { OtlpSender, type OtlpTarget } from './otlp-sender.js';
import { probeCollector } from './probe-collector.js';
import { RunSpanBuilder } from './run-spans.js';

export interface LiveExport {
  /** Give it every event of the run, in order (`onEvent` of startRun and continueRun, or `run.events`). */
  onEvent: (event: JournalEvent) => void;
  /** Sends what is left, ending a span still open; throws TRACE_EXPORT_FAILED if spans could not be sent. */
  close: () => Promise<number>;
}

/**
 * Spans sent while a run goes on: each model call and tool call as soon as its journal event is written,
 * the invocation's span at ENGINE_END. The same spans, ids included, as `delta export otel` gives for the
 * finished run (the same RunSpanBuilder makes both).
 */
export function createLiveExport(target: OtlpTarget & { content?: boolean; closeWaitMs?: number }, source?: string): LiveExport {
  // Bounded by closeWaitMs: no export, retries included, outlasts what the end of the run waits for.
  const sender = new OtlpSender(target.closeWaitMs === undefined ? target : { ...target, timeoutMs: target.closeWaitMs }, source);
  // A collector that is down is known within milliseconds, before the first batch goes: nothing is sent to it.
  void probeCollector(sender.url).then((reason) => {
    if (reason !== undefined) sender.noteUnreachable(reason);
  });
  const builder = new RunSpanBuilder({ content: target.content === true });
  return {
    onEvent: (event) => sender.send(builder.add(event)),
    close: async () => {
      sender.send(builder.finish());
      return sender.close(target.closeWaitMs === undefined ? {} : { waitMs: target.closeWaitMs });
    },
  };
}
