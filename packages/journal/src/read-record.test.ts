import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JournalReader } from './journal-reader.js';
import { JournalWriter } from './journal-writer.js';
import { readLatestRunId } from './layout.js';
import { readMetadata } from './metadata.js';
import { readJournal } from './read-journal.js';

let directory: string;
let run: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'read-record-'));
  run = join(directory, '.delta', 'run1');
  mkdirSync(run, { recursive: true });
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

// What a tool that escaped a weaker sandbox could leave in .delta/: each read is refused at once, naming the file.
describe('records read back from .delta/', () => {
  it('refuses a journal that is a link to /dev/zero, in every reader', () => {
    const journal = join(run, 'journal.jsonl');
    symlinkSync('/dev/zero', journal);
    const refused = { code: 'RECORD_REFUSED', message: expect.stringContaining(`${journal} is a symbolic link to /dev/zero`) };
    expect(() => readJournal(journal)).toThrow(expect.objectContaining(refused));
    expect(() => JournalWriter.open(journal)).toThrow(expect.objectContaining(refused));
    expect(() => new JournalReader(journal).read()).toThrow(expect.objectContaining(refused));
  });

  it('refuses a metadata.json that is a FIFO without waiting for a writer', () => {
    const metadata = join(run, 'metadata.json');
    execFileSync('mkfifo', [metadata]);
    const started = Date.now();
    expect(() => readMetadata(metadata)).toThrow(
      expect.objectContaining({ code: 'RECORD_REFUSED', message: expect.stringContaining(`${metadata} is a FIFO`) }),
    );
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a LATEST that leads to a host file', () => {
    writeFileSync(join(directory, 'secret'), 'run1\n');
    symlinkSync(join(directory, 'secret'), join(directory, '.delta', 'LATEST'));
    expect(() => readLatestRunId(directory)).toThrow(expect.objectContaining({ code: 'RECORD_REFUSED' }));
  });
});
