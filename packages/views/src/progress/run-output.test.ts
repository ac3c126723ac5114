import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@delta/journal';
import { createRunOutput } from './run-output.js';

function stream() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk) => {
    text += String(chunk);
  });
  return { out: out as unknown as NodeJS.WriteStream, text: () => text };
}

const start = { seq: 1, type: 'ENGINE_START', run_id: 'r1', work_dir: '/w', timestamp: 't' } as unknown as JournalEvent;

describe('createRunOutput', () => {
  it('with verbose, says where the journal is as the run starts, and only then', async () => {
    const stdout = stream();
    const stderr = stream();
    const output = createRunOutput({ verbose: true, quiet: true }, { stdout: stdout.out, stderr: stderr.out, environment: {} });
    output.onEvent?.(start);
    await new Promise(setImmediate);
    expect(stderr.text()).toBe('Journal log: /w/.delta/r1/journal.jsonl\n');
    expect(stdout.text()).toBe('');
  });

  it('without verbose, says nothing of the journal', async () => {
    const stderr = stream();
    const output = createRunOutput({ quiet: true }, { stdout: stream().out, stderr: stderr.out, environment: {} });
    output.onEvent?.(start);
    await new Promise(setImmediate);
    expect(stderr.text()).toBe('');
  });
});
