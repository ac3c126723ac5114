import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { JournalReader } from '@delta/journal';
import { createTranscriptFormatter, paletteFor } from '@delta/views';
import { locateRun, type RunLocation } from './inspect/locate-run.js';

export interface LogFlags extends RunLocation {
  follow?: boolean;
  raw?: boolean;
}

const POLL_MS = 200;

/** Copies the journal's complete lines from `offset` to stdout; returns the new offset. */
function copyRawLines(file: string, offset: number): { offset: number; ended: boolean } {
  if (!existsSync(file) || statSync(file).size <= offset) return { offset, ended: false };
  const descriptor = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(statSync(file).size - offset);
    const read = readSync(descriptor, buffer, 0, buffer.length, offset);
    const end = buffer.lastIndexOf(0x0a, read - 1);
    if (end < 0) return { offset, ended: false };
    const text = buffer.toString('utf8', 0, end + 1);
    process.stdout.write(text);
    return { offset: offset + end + 1, ended: /"type":"ENGINE_END"/.test(text.split('\n').at(-2) ?? '') };
  } finally {
    closeSync(descriptor);
  }
}

/** `delta log`: the journal as a transcript (or as JSONL with --raw); -f follows a live run until it ends. */
export async function logCommand(flags: LogFlags): Promise<number> {
  const paths = locateRun(flags);
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  if (flags.follow) process.once('SIGINT', onInterrupt);
  try {
    if (flags.raw) {
      let state = { offset: 0, ended: false };
      for (;;) {
        state = copyRawLines(paths.journal, state.offset);
        if (!flags.follow || state.ended || stop.signal.aborted) return 0;
        await sleep(POLL_MS);
      }
    }
    const format = createTranscriptFormatter(paletteFor(process.stdout, process.env));
    const reader = new JournalReader(paths.journal);
    let shown = 0;
    for (;;) {
      const { events } = reader.read();
      for (const event of events.slice(shown)) process.stdout.write(format(event));
      shown = events.length;
      if (!flags.follow || stop.signal.aborted || events.at(-1)?.type === 'ENGINE_END') return 0;
      await sleep(POLL_MS);
    }
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}
