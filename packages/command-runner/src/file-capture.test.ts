import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureFromBytes, captureFromFile } from './file-capture.js';

let directory: string | undefined;
afterEach(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
});

describe('captureFromBytes', () => {
  it('keeps what captureFromFile keeps of the same output: its head and tail, and what was left out', () => {
    directory = mkdtempSync(join(tmpdir(), 'file-capture-'));
    const file = join(directory, 'stdout.log');
    // Multi-byte characters, so that a cut can fall inside one.
    writeFileSync(file, Array.from({ length: 400 }, (_, line) => `line ${line}: é ✓ 𝄞\n`).join(''));
    const bytes = readFileSync(file);
    for (const limit of [1, 7, 100, Math.floor(bytes.length / 2), bytes.length - 1, bytes.length, bytes.length * 2]) {
      expect(captureFromBytes(bytes, limit), `limit ${limit}`).toEqual(captureFromFile(file, limit));
    }
    writeFileSync(file, '');
    expect(captureFromBytes(Buffer.alloc(0), 10)).toEqual(captureFromFile(file, 10));
  });
});
