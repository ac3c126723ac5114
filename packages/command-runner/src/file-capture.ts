import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { CapturedOutput } from './bounded-capture.js';

function readRange(descriptor: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const count = readSync(descriptor, buffer, read, length - read, position + read);
    if (count === 0) break;
    read += count;
  }
  return buffer.subarray(0, read);
}

/**
 * The head and tail of an output file, as BoundedCapture would have kept them while it was written:
 * at most `limit` bytes from each end, whatever the file's size.
 */
export function captureFromFile(file: string, limit: number): CapturedOutput {
  const descriptor = openSync(file, 'r');
  try {
    const total = fstatSync(descriptor).size;
    const head = readRange(descriptor, 0, Math.min(total, limit));
    const tailStart = Math.max(head.length, total - limit);
    const tail = readRange(descriptor, tailStart, total - tailStart);
    return {
      head: head.toString('utf8'),
      tail: tail.toString('utf8'),
      totalBytes: head.length + (tailStart - head.length) + tail.length,
      omittedBytes: tailStart - head.length,
    };
  } finally {
    closeSync(descriptor);
  }
}
