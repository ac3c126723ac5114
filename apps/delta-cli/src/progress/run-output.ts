import type { JournalEvent } from '@delta/journal';
import { paletteFor } from '../inspect/color.js';
import { createJournalEcho } from './journal-echo.js';
import { LiveDisplay } from './live-display.js';

/** How `delta run` and `delta continue` show progress: -q, --json. */
export interface OutputFlags {
  quiet?: boolean;
  json?: boolean;
}

export interface RunOutput {
  onLog: (line: string) => void;
  onEvent?: (event: JournalEvent) => void;
  stop: () => void;
}

/**
 * --json: every journal event as one line on stdout. On a terminal (stdout and stderr both), the live
 * status line on stderr. Otherwise the engine's plain progress lines on stderr. -q: no progress.
 */
export function createRunOutput(flags: OutputFlags, environment: NodeJS.ProcessEnv = process.env): RunOutput {
  const plain = flags.quiet ? () => {} : (line: string) => process.stderr.write(`${line}\n`);
  if (flags.json) {
    return { onLog: plain, onEvent: createJournalEcho((text) => process.stdout.write(text)), stop: () => {} };
  }
  if (flags.quiet || !process.stdout.isTTY || !process.stderr.isTTY || environment.TERM === 'dumb') {
    return { onLog: plain, stop: () => {} };
  }
  const display = new LiveDisplay(process.stderr, paletteFor(process.stderr, environment));
  return { onLog: display.onLog, onEvent: display.onEvent, stop: () => display.stop() };
}
