import type { JournalEvent } from '@delta/journal';
import { continueRun, type ContinueRunOptions } from './continue-run.js';
import type { RunResult } from './run-options.js';
import { startRun, type StartRunOptions } from './start-run.js';

/** A run in progress: its journal events as they are written, and how it ends. */
export interface AgentRun {
  /**
   * Every journal event of this engine invocation, in order, the same ones `delta run --json` prints.
   * It ends when the run stops, and throws what `result` rejects with. Iterate it once; breaking out of
   * the loop does not stop the run (abort `signal` for that).
   */
  events: AsyncIterable<JournalEvent>;
  /** The run's result: COMPLETED, FAILED, INTERRUPTED, WAITING_FOR_INPUT and their exit codes. */
  result: Promise<RunResult>;
}

/** Starts a new run, like `startRun`, and streams its events. */
export function runAgent(options: StartRunOptions): AgentRun {
  return streamEvents((onEvent) => startRun({ ...options, onEvent }), options.onEvent);
}

/** Continues a run, like `continueRun`, and streams its events. */
export function continueAgent(options: ContinueRunOptions): AgentRun {
  return streamEvents((onEvent) => continueRun({ ...options, onEvent }), options.onEvent);
}

function streamEvents(
  run: (onEvent: (event: JournalEvent) => void) => Promise<RunResult>,
  callerOnEvent: ((event: JournalEvent) => void) | undefined,
): AgentRun {
  const buffered: JournalEvent[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  let listening = true;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const result = run((event) => {
    callerOnEvent?.(event);
    if (listening) buffered.push(event);
    notify();
  });
  const done = result.then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  void done.then(() => {
    settled = true;
    notify();
  });

  async function* iterate(): AsyncGenerator<JournalEvent> {
    try {
      for (;;) {
        while (buffered.length > 0) yield buffered.shift()!;
        if (settled) {
          const failure = await done;
          if (failure) throw failure.error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      listening = false;
      buffered.length = 0;
    }
  }
  // The failure reaches whoever iterates `events`; awaiting `result` still rejects with it.
  result.catch(() => undefined);
  return { events: iterate(), result };
}
