import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spansOfRun } from './export-run.js';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const at = (second: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, second)).toISOString();

/** A run whose THOUGHTs lack duration_ms (as before 0.2), so the spans take it from each call's metadata.json. */
function recordedRun(metadata: Record<string, string | 'fifo'>): { journal: string; invocationsDir: string } {
  const runDir = mkdtempSync(join(tmpdir(), 'delta-export-run-'));
  directories.push(runDir);
  const invocationsDir = join(runDir, 'io', 'invocations');
  const refs = Object.keys(metadata);
  const events = [
    { type: 'ENGINE_START', run_id: 'r1', agent_home: '/a', work_dir: '/w', agent_name: 'writer', model: 'gpt-x' },
    { type: 'USER_MESSAGE', content: 'Hi' },
    ...refs.map((ref, index) => ({ type: 'THOUGHT', iteration: index + 1, content: 'ok', tool_calls: [], llm_invocation_ref: ref })),
    { type: 'ENGINE_END', run_id: 'r1', status: 'COMPLETED', final_iteration: refs.length },
  ];
  const journal = join(runDir, 'journal.jsonl');
  writeFileSync(journal, events.map((event, index) => `${JSON.stringify({ seq: index + 1, timestamp: at(10), ...event })}\n`).join(''));
  for (const [ref, content] of Object.entries(metadata)) {
    mkdirSync(join(invocationsDir, ref), { recursive: true });
    const file = join(invocationsDir, ref, 'metadata.json');
    if (content === 'fifo') execFileSync('mkfifo', [file]);
    else writeFileSync(file, content);
  }
  return { journal, invocationsDir };
}

describe('spansOfRun', () => {
  it("takes a call's duration from its metadata.json, and none from one a tool replaced with a FIFO or with JSON that is not an object", () => {
    const run = recordedRun({ '0001_aa': '{"duration_ms":1500}', '0002_bb': 'fifo', '0003_cc': 'null', '0004_dd': '{"duration_ms":' });
    const chats = spansOfRun(run).filter((span) => span.name === 'chat gpt-x');
    expect(chats.map((span) => span.endMs - span.startMs)).toEqual([1500, 0, 0, 0]);
  });
});
