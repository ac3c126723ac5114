import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { runPaths, type JournalEvent } from '@delta/journal';

/**
 * `--json`: copies each journal line to stdout byte for byte, as the engine wrote it, when its event is
 * reported. Lines written before this engine invocation began (a continued run) are skipped.
 */
export function createJournalEcho(write: (text: string) => void): (event: JournalEvent) => void {
  let file: string | undefined;
  let offset = 0;
  let firstSeq = 0;
  let pending = '';
  return (event) => {
    if (file === undefined) {
      if (event.type !== 'ENGINE_START') {
        write(`${JSON.stringify(event)}\n`);
        return;
      }
      file = runPaths(event.work_dir, event.run_id).journal;
      firstSeq = event.seq;
    }
    const descriptor = openSync(file, 'r');
    let chunk: Buffer;
    try {
      const size = fstatSync(descriptor).size;
      chunk = Buffer.alloc(Math.max(0, size - offset));
      const read = readSync(descriptor, chunk, 0, chunk.length, offset);
      chunk = chunk.subarray(0, read);
      offset += read;
    } finally {
      closeSync(descriptor);
    }
    pending += chunk.toString('utf8');
    const end = pending.lastIndexOf('\n');
    if (end < 0) return;
    const lines = pending.slice(0, end).split('\n');
    pending = pending.slice(end + 1);
    for (const line of lines) {
      const seq = Number(/^\{"seq":(\d+)/.exec(line)?.[1] ?? Number.NaN);
      if (!(seq < firstSeq)) write(`${line}\n`);
    }
  };
}
