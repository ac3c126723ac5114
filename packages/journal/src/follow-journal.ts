import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JournalEvent } from './events.js';
import { JournalReader } from './journal-reader.js';

/** How a journal is read: once, or (`follow`) until its run ends (ENGINE_END) or `signal` aborts, every `pollMs` (200). */
export interface FollowOptions {
  follow: boolean;
  signal?: AbortSignal;
  pollMs?: number;
}

/** Copies the journal's complete lines from `offset`; returns the new offset, and whether the last line is ENGINE_END. */
function copyLines(file: string, offset: number, onText: (text: string) => void): { offset: number; ended: boolean } {
  if (!existsSync(file) || statSync(file).size <= offset) return { offset, ended: false };
  const descriptor = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(statSync(file).size - offset);
    const read = readSync(descriptor, buffer, 0, buffer.length, offset);
    const end = buffer.lastIndexOf(0x0a, read - 1);
    if (end < 0) return { offset, ended: false };
    const text = buffer.toString('utf8', 0, end + 1);
    onText(text);
    return { offset: offset + end + 1, ended: /"type":"ENGINE_END"/.test(text.split('\n').at(-2) ?? '') };
  } finally {
    closeSync(descriptor);
  }
}

/** `delta log --raw [-f]`: the journal's complete lines as they are written, in pieces of whole lines. */
export async function followJournalLines(file: string, onText: (text: string) => void, options: FollowOptions): Promise<void> {
  let state = { offset: 0, ended: false };
  for (;;) {
    state = copyLines(file, state.offset, onText);
    if (!options.follow || state.ended || options.signal?.aborted) return;
    await sleep(options.pollMs ?? 200);
  }
}

/** `delta log [-f]`: each event of the journal once, in order; a last line still being written waits for its end. */
export async function followJournalEvents(file: string, onEvent: (event: JournalEvent) => void, options: FollowOptions): Promise<void> {
  const reader = new JournalReader(file);
  let shown = 0;
  for (;;) {
    const { events } = reader.read();
    for (const event of events.slice(shown)) onEvent(event);
    shown = events.length;
    if (!options.follow || options.signal?.aborted || events.at(-1)?.type === 'ENGINE_END') return;
    await sleep(options.pollMs ?? 200);
  }
}
