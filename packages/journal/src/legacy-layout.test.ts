import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '@delta/errors';
import { findRunPaths, listRunIds, migrateLegacyRun, readLatestRunId, readMetadata } from './index.js';

let work: string;
afterEach(() => rmSync(work, { recursive: true, force: true }));

const METADATA = {
  run_id: 'r1',
  workspace_id: 'W001',
  agent_name: 'a',
  status: 'COMPLETED',
  created_at: '2025-10-13T14:35:22.123Z',
  updated_at: '2025-10-13T14:40:15.456Z',
  end_time: '2025-10-13T14:40:15.456Z',
  initial_message: 'hi',
  iterations: 1,
  max_iterations: 30,
  error: null,
  agent_home: '/agent',
  work_dir: '/work',
};

/** Spec 003 §2.1's v1.2 layout, with spec 000 §2.1.4's metadata (no schema_version). */
function v12(runIds: string[]): void {
  work = mkdtempSync(join(tmpdir(), 'legacy-layout-'));
  for (const runId of runIds) {
    const execution = join(work, '.delta', 'runs', runId, 'execution');
    mkdirSync(execution, { recursive: true });
    mkdirSync(join(work, '.delta', 'runs', runId, 'runtime_io', 'tool_executions', 'call_1'), { recursive: true });
    writeFileSync(join(execution, 'metadata.json'), JSON.stringify({ ...METADATA, run_id: runId }));
    writeFileSync(join(execution, 'journal.jsonl'), '');
    writeFileSync(join(execution, 'engine.log'), 'old log\n');
  }
  writeFileSync(join(work, '.delta', 'runs', 'LATEST'), `${runIds.at(-1)}\n`);
  writeFileSync(join(work, '.delta', 'schema_version.txt'), '1.2\n');
}

describe('v1.2 runs', () => {
  it('are listed, found and read in place, their metadata without schema_version read as 1.2', () => {
    v12(['r1', 'r2']);
    expect(listRunIds(work)).toEqual(['r1', 'r2']);
    expect(readLatestRunId(work)).toBe('r2');
    const paths = findRunPaths(work, 'r1');
    expect(paths.journal).toBe(join(work, '.delta', 'runs', 'r1', 'execution', 'journal.jsonl'));
    expect(paths.toolExecutionsDir).toBe(join(work, '.delta', 'runs', 'r1', 'runtime_io', 'tool_executions'));
    expect(readMetadata(paths.metadata).schema_version).toBe('1.2');
  });

  it('move to the v1.3 layout one by one, records kept; v1.2 files go with the last', () => {
    v12(['r1', 'r2']);
    expect(migrateLegacyRun(work, 'r1')).toEqual({ runId: 'r1', moved: ['engine.log', 'journal.jsonl', 'metadata.json'], kept: [] });
    expect(migrateLegacyRun(work, 'r1')).toBeUndefined();
    expect(readdirSync(join(work, '.delta', 'r1')).sort()).toEqual(['engine.log', 'journal.jsonl', 'metadata.json', 'runtime_io']);
    expect(readMetadata(join(work, '.delta', 'r1', 'metadata.json')).schema_version).toBe('1.3');
    expect(readdirSync(join(work, '.delta')).sort()).toEqual(['LATEST', 'VERSION', 'r1', 'runs', 'schema_version.txt']);
    expect(listRunIds(work)).toEqual(['r1', 'r2']);
    migrateLegacyRun(work, 'r2');
    expect(readdirSync(join(work, '.delta')).sort()).toEqual(['LATEST', 'VERSION', 'r1', 'r2']);
    expect(readFileSync(join(work, '.delta', 'LATEST'), 'utf8')).toBe('r2\n');
  });

  it('refuse a metadata.json of an unknown version with exit code 2', () => {
    v12(['r1']);
    const file = findRunPaths(work, 'r1').metadata;
    writeFileSync(file, JSON.stringify({ ...METADATA, schema_version: '9' }));
    let error: unknown;
    try {
      readMetadata(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'METADATA_VERSION', message: expect.stringContaining('this engine reads 1.3 and 1.2') });
    expect(exitCodeOf(error)).toBe(2);
  });
});
