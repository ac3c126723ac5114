import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeltaError } from '@delta/errors';
import {
  createNextWorkspace,
  createRunDirectories,
  createRunId,
  isRunId,
  listRunIds,
  runIdProblem,
  runPaths,
  listWorkspaces,
  readLastUsedWorkspace,
  readLatestRunId,
  writeLatestRunId,
  readMetadata,
  writeMetadata,
  updateMetadata,
  type RunMetadata,
} from './index.js';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-layout-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('layout', () => {
  it('makes run ids YYYYMMDD_HHmmss_xxxxxx', () => {
    const id = createRunId(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
    expect(id).toMatch(/^20260102_030405_[a-z0-9]{6}$/);
    expect(isRunId(id)).toBe(true);
    expect(isRunId('2026_x')).toBe(true);
  });

  it('takes run ids a caller chooses when they are safe names, and says what is wrong with the others', () => {
    for (const good of ['a', 'nightly-2026.11.24', 'B_7', 'x'.repeat(100)]) expect(runIdProblem(good), good).toBeUndefined();
    expect(runIdProblem('')).toBe('it is empty');
    expect(runIdProblem('x'.repeat(101))).toContain('the most is 100');
    for (const bad of ['../x', '..', '.', '.hidden', 'a/b', 'a b', '-a', '_a', 'a\nb', 'é', 'a\\b']) {
      expect(runIdProblem(bad), bad).toContain('only letters, digits');
    }
    for (const reserved of ['LATEST', 'latest', 'VERSION', 'tmp', 'context_artifacts']) {
      expect(runIdProblem(reserved), reserved).toContain('is reserved');
    }
  });

  it('claims a run id once per workspace (RUN_ID_TAKEN the second time)', () => {
    const work = temp();
    createRunDirectories(runPaths(work, 'a'));
    expect(readdirSync(join(work, '.delta', 'a', 'io')).sort()).toEqual(['hooks', 'invocations', 'tool_executions']);
    expect(readFileSync(join(work, '.delta', 'VERSION'), 'utf8')).toBe('1.3\n');
    let error: unknown;
    try {
      createRunDirectories(runPaths(work, 'a'));
    } catch (caught) {
      error = caught;
    }
    expect(DeltaError.isInstance(error) && error.code).toBe('RUN_ID_TAKEN');
    expect(DeltaError.isInstance(error) && error.kind).toBe('configuration');
    expect((error as Error).message).toContain('The run id "a" is already used in');
    expect(readdirSync(join(work, '.delta')).sort()).toEqual(['VERSION', 'a']);
  });

  it('lists only run directories: not the files and directories others keep under .delta/', () => {
    const work = temp();
    for (const id of ['20260101_000000_abcdef', 'zeta', 'alpha']) createRunDirectories(runPaths(work, id));
    writeLatestRunId(work, 'zeta');
    mkdirSync(join(work, '.delta', 'context_artifacts'));
    mkdirSync(join(work, '.delta', 'cache'));
    writeFileSync(join(work, '.delta', 'notes'), 'x');
    expect(listRunIds(work)).toEqual(['20260101_000000_abcdef', 'alpha', 'zeta']);
  });

  it('numbers workspaces W001, W002 and records LAST_USED', () => {
    const agent = temp();
    expect(listWorkspaces(agent)).toEqual([]);
    expect(createNextWorkspace(agent).id).toBe('W001');
    const second = createNextWorkspace(agent);
    expect(second).toEqual({ id: 'W002', path: join(agent, 'workspaces', 'W002') });
    expect(listWorkspaces(agent)).toEqual(['W001', 'W002']);
    expect(readLastUsedWorkspace(agent)).toBe('W002');
    expect(readFileSync(join(agent, 'workspaces', 'LAST_USED'), 'utf8')).toBe('W002\n');
  });

  it('keeps LATEST as a plain text file', () => {
    const work = temp();
    expect(readLatestRunId(work)).toBeUndefined();
    writeLatestRunId(work, '20260101_000000_abcdef');
    expect(readLatestRunId(work)).toBe('20260101_000000_abcdef');
    writeLatestRunId(work, 'b');
    expect(readFileSync(join(work, '.delta', 'LATEST'), 'utf8')).toBe('b\n');
    // Written whole through a renamed file: nothing else is left behind.
    expect(readdirSync(join(work, '.delta'))).toEqual(['LATEST']);
  });
});

describe('metadata', () => {
  const base: RunMetadata = {
    schema_version: '1.3',
    run_id: 'r',
    workspace_id: 'W001',
    agent_name: 'a',
    status: 'RUNNING',
    created_at: 't',
    updated_at: 't',
    end_time: null,
    initial_message: 'm',
    iterations: 0,
    max_iterations: 30,
    error: null,
    agent_home: '/a',
    work_dir: '/w',
  };

  it('writes, reads and updates metadata.json', () => {
    const file = join(temp(), 'metadata.json');
    writeMetadata(file, base);
    expect(readMetadata(file)).toEqual(base);
    const updated = updateMetadata(file, { status: 'COMPLETED', iterations: 3 });
    expect(readMetadata(file)).toEqual(updated);
    expect(updated.updated_at).not.toBe('t');
  });

  it('names the field that is wrong and refuses an unknown schema version', () => {
    const file = join(temp(), 'metadata.json');
    writeMetadata(file, { ...base, status: 'DONE' as never });
    expect(() => readMetadata(file)).toThrow(/field "status"/);
    writeMetadata(file, { ...base, schema_version: '9' });
    expect(() => readMetadata(file)).toThrow(/schema_version 9; this engine reads 1.3/);
  });
});

/** A running run's metadata.json, for the MetadataFile tests. */
const RUNNING: RunMetadata = {
  schema_version: '1.3',
  run_id: 'r',
  workspace_id: null,
  agent_name: 'a',
  status: 'RUNNING',
  created_at: 't',
  updated_at: 't',
  end_time: null,
  initial_message: 'm',
  iterations: 0,
  max_iterations: 30,
  error: null,
  agent_home: '/a',
  work_dir: '/w',
};

describe('MetadataFile', () => {
  it('writes at once with update, at most every refresh with updateSoon, and flushes what is pending', async () => {
    const { MetadataFile, writeMetadata: write, readMetadata: read } = await import('./index.js');
    const { METADATA_REFRESH_MS } = await import('./metadata-file.js');
    const file = join(temp(), 'metadata.json');
    // The refresh is timed by the clock: the test moves the clock instead of sleeping and hoping.
    vi.useFakeTimers({ toFake: ['Date'] });
    write(file, RUNNING);
    const metadata = new MetadataFile(file);
    metadata.update({ iterations: 1 });
    expect(read(file).iterations).toBe(1);
    vi.advanceTimersByTime(METADATA_REFRESH_MS - 1);
    metadata.updateSoon({ iterations: 2 });
    expect(metadata.current.iterations).toBe(2);
    expect(read(file).iterations).toBe(1);
    metadata.flush();
    expect(read(file).iterations).toBe(2);
    vi.advanceTimersByTime(METADATA_REFRESH_MS);
    metadata.updateSoon({ iterations: 3 });
    expect(read(file).iterations).toBe(3);
  });

  it('rewrites running totals in place (same file), replaces the file on a status change, and cuts a shorter text', async () => {
    const { MetadataFile, writeMetadata: write, readMetadata: read } = await import('./index.js');
    const file = join(temp(), 'metadata.json');
    write(file, RUNNING);
    const metadata = new MetadataFile(file);
    metadata.update({ iterations: 1 });
    const inode = statSync(file).ino;
    for (let iteration = 2; iteration <= 300; iteration += 1) {
      metadata.updateSoon({
        iterations: iteration,
        usage: { prompt_tokens: iteration * 1000, completion_tokens: 5, total_tokens: iteration * 1000 + 5 },
      });
      metadata.flush();
    }
    expect(statSync(file).ino).toBe(inode);
    expect(read(file)).toEqual(metadata.current);
    // A shorter text than the one before is padded with spaces: nothing of the longer one is left.
    const longer = statSync(file).size;
    metadata.updateSoon({ iterations: 7, usage: undefined });
    metadata.flush();
    expect(read(file)).toEqual(JSON.parse(JSON.stringify(metadata.current)));
    expect(statSync(file).size).toBe(longer);
    expect(readFileSync(file, 'utf8')).toMatch(/\} +\n$/);
    metadata.update({ status: 'COMPLETED' });
    expect(statSync(file).ino).not.toBe(inode);
    expect(read(file).status).toBe('COMPLETED');
    metadata.close();
  });

  it('reads metadata.json while another process rewrites it in place as fast as it can, and never fails', async () => {
    const { readMetadata: read, writeMetadata: write } = await import('./index.js');
    const file = join(temp(), 'metadata.json');
    const base = RUNNING;
    write(file, base);
    // The writer does what MetadataFile does for running totals: one write at the start, a shorter text
    // padded with spaces to the file's length.
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `
      const fs = require('node:fs');
      const base = ${JSON.stringify(base)};
      const fd = fs.openSync(${JSON.stringify(file)}, 'r+');
      const end = Date.now() + 1500;
      for (let i = 0; Date.now() < end; i += 1) {
        const extra = i % 2 ? { usage: { prompt_tokens: i, completion_tokens: i, total_tokens: 2 * i } } : {};
        let text = Buffer.from(JSON.stringify({ ...base, iterations: i, ...extra }, null, 2) + '\\n');
        const size = fs.fstatSync(fd).size;
        if (text.length < size) text = Buffer.concat([text.subarray(0, text.length - 1), Buffer.alloc(size - text.length, ' '), Buffer.from('\\n')]);
        fs.writeSync(fd, text, 0, text.length, 0);
      }
    `,
      ],
      { stdio: 'inherit' },
    );
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    let reads = 0;
    while (writer.exitCode === null) {
      expect(read(file).run_id).toBe('r');
      reads += 1;
      if (reads % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await exited;
    expect(writer.exitCode).toBe(0);
    expect(reads).toBeGreaterThan(100);
  });
});
