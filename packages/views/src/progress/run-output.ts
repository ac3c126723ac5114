import { type JournalEvent, runPaths } from '@delta/journal';
import type { ModelDelta } from '@delta/engine';
import { paletteFor } from '../inspect/color.js';
import { createJournalEcho } from './journal-echo.js';
import { LiveDisplay } from './live-display.js';

/** How `delta run` and `delta continue` show progress: -q, --json; -v also says where the journal is. */
export interface OutputFlags {
  quiet?: boolean;
  json?: boolean;
  verbose?: boolean;
}

export interface RunOutput {
  onLog: (line: string) => void;
  onEvent?: (event: JournalEvent) => void;
  /** A streamed answer's pieces as they arrive (`llm.stream: true`): the terminal display shows its text. */
  onModelDelta?: (delta: ModelDelta) => void;
  /** Writes what is held back now (before a prompt, say). */
  flush: () => void;
  /** Ends the display; what is held back is written. */
  stop: () => void;
}

/** How long progress lines for a pipe or a file may be held back to be written together. */
export const PROGRESS_BATCH_MS = 50;

/**
 * Progress lines for a pipe or a file: the first after a quiet spell is written at once, those that
 * follow within PROGRESS_BATCH_MS are written together. Every write to a pipe wakes its reader; a run
 * making hundreds of steps a second would otherwise spend much of its time waking it, line by line.
 */
function batchedLines(stream: NodeJS.WritableStream): { write: (line: string) => void; flush: () => void } {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending === '') return;
    const text = pending;
    pending = '';
    stream.write(text);
  };
  return {
    write: (line) => {
      if (timer === undefined) {
        stream.write(`${line}\n`);
        timer = setTimeout(flush, PROGRESS_BATCH_MS);
        timer.unref();
        return;
      }
      pending += `${line}\n`;
    },
    flush,
  };
}

/** Where a run's output goes: the process's own streams and environment (NO_COLOR, TERM), passed in. */
export interface RunTerminal {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  environment: NodeJS.ProcessEnv;
}

/**
 * --json: every journal event as one line on stdout. On a terminal (stdout and stderr both), the live
 * status line on stderr. Otherwise the engine's plain progress lines on stderr. -q: no progress. Lines
 * still held back when the process ends are the caller's to flush (`flush`, on its way out). -v: the journal's
 * path on stderr as the run starts (spec 003 section 10.2), so that it can be followed at once.
 */
export function createRunOutput(flags: OutputFlags, terminal: RunTerminal): RunOutput {
  const output = progressOutput(flags, terminal);
  if (flags.verbose !== true) return output;
  const { onEvent } = output;
  return {
    ...output,
    onEvent: (event) => {
      if (event.type === 'ENGINE_START') terminal.stderr.write(`Journal log: ${runPaths(event.work_dir, event.run_id).journal}\n`);
      onEvent?.(event);
    },
  };
}

function progressOutput(flags: OutputFlags, terminal: RunTerminal): RunOutput {
  const { stdout, stderr, environment } = terminal;
  const lines = flags.quiet ? undefined : batchedLines(stderr);
  const plain = lines ? lines.write : () => {};
  const flush = () => lines?.flush();
  if (flags.json) {
    return { onLog: plain, onEvent: createJournalEcho((text) => stdout.write(text)), flush, stop: flush };
  }
  if (flags.quiet || !stdout.isTTY || !stderr.isTTY || environment.TERM === 'dumb') {
    return { onLog: plain, flush, stop: flush };
  }
  const display = new LiveDisplay(stderr, paletteFor(stderr, environment));
  return {
    onLog: display.onLog,
    onEvent: display.onEvent,
    onModelDelta: display.onModelDelta,
    flush: () => {},
    stop: () => display.stop(),
  };
}
