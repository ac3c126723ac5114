import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTasks } from './dataset.js';

afterEach(() => cleanupTempDirs());

function problem(text: string, file = '/data/tasks.jsonl'): string {
  try {
    parseTasks(text, file);
  } catch (error) {
    expect((error as { code?: string }).code).toBe('DATASET_INVALID');
    return (error as Error).message;
  }
  throw new Error('parsed');
}

describe('parseTasks', () => {
  it('reads one task per line, skipping blank lines', () => {
    const tasks = parseTasks(
      '{"id": "a", "message": "m1", "expected": 3}\n\n{"id": "b", "message": "m2", "files": {"x/y.txt": "hi"}}\n',
      'f',
    );
    expect(tasks).toEqual([
      { id: 'a', message: 'm1', expected: 3 },
      { id: 'b', message: 'm2', files: { 'x/y.txt': 'hi' } },
    ]);
  });

  it('names the file, the line and the field of each problem', () => {
    const first = '{"id": "a", "message": "m"}\n';
    expect(problem(`${first}{"id": "b", "message": "m"\n`)).toMatch(/^\/data\/tasks\.jsonl:2: not valid JSON/);
    expect(problem(`${first}{"id": "b"}\n`)).toMatch(/^\/data\/tasks\.jsonl:2 \(message\): /);
    expect(problem(`${first}{"id": "a", "message": "again"}\n`)).toBe('/data/tasks.jsonl:2 (id): the id "a" is already used on line 1.');
    expect(problem('{"id": "../up", "message": "m"}\n')).toContain('tasks.jsonl:1 (id): the id "../up" cannot name a directory');
    expect(problem('{"id": ".hidden", "message": "m"}\n')).toContain('cannot name a directory');
    expect(problem('{"id": "a", "message": "m", "expeted": 1}\n')).toMatch(/tasks\.jsonl:1: .*expeted/);
    // A misspelled key is named with the one it most likely meant; the hint lists the keys of a run in an image.
    expect(problem('{"id": "a", "message": "m", "Workdir": "/w", "imgae": "x"}\n')).toBe(
      '/data/tasks.jsonl:1: unknown keys: "Workdir" (did you mean "workdir"?), "imgae" (did you mean "image"?).',
    );
    expect(problem('{"id": "a", "message": "m", "zzz": 1}\n')).toBe('/data/tasks.jsonl:1: an unknown key: "zzz".');
    expect(problem('{"id": "a", "message": "m", "files": {"../x": "y"}}\n')).toContain(
      'tasks.jsonl:1 (files["../x"]): the path "../x" is not inside the workspace',
    );
    expect(problem('{"id": "a", "message": "m", "workspace": "missing"}\n')).toContain('(workspace): /data/missing is not a directory');
    expect(problem('\n\n')).toContain('holds no task');
  });

  it('reports every line with a problem in one round, each with its line and field', () => {
    const text = [
      '{"id": "a", "message": "m"',
      '{"id": "b", "message": "m", "imgae": "x"}',
      '{"id": "c", "message": "m"}',
      '{"id": "c", "message": "again"}',
      '{"id": "d"}',
    ].join('\n');
    const message = problem(text);
    expect(message).toMatch(/^The TASKS file \/data\/tasks\.jsonl has 4 configuration errors:\n/);
    expect(message).toContain('  1. /data/tasks.jsonl:1: not valid JSON');
    expect(message).toContain('  2. /data/tasks.jsonl:2: an unknown key: "imgae" (did you mean "image"?).');
    expect(message).toContain('  3. /data/tasks.jsonl:4 (id): the id "c" is already used on line 3.');
    expect(message).toContain('  4. /data/tasks.jsonl:5 (message): ');
  });

  it('lists the first 20 problems of a file of many bad lines, and how many more there are', () => {
    const text = Array.from({ length: 25 }, (_, index) => `{"id": "t${index}"}`).join('\n');
    const message = problem(text);
    expect(message).toContain('has 21 configuration errors');
    expect(message).toContain('20. /data/tasks.jsonl:20 (message): ');
    expect(message).not.toContain('tasks.jsonl:21 (message)');
    expect(message).toContain('21. /data/tasks.jsonl: and 5 more lines with problems, not listed here.');
  });

  it('resolves a workspace directory against the TASKS file', async () => {
    const directory = await createTempDir();
    mkdirSync(join(directory, 'repo'));
    const [task] = parseTasks('{"id": "a", "message": "m", "workspace": "repo"}', join(directory, 'tasks.jsonl'));
    expect(task?.workspace).toBe(join(directory, 'repo'));
  });

  it('reads tests, solution, timeouts, verifier and limits on a TASKS line, tests relative to the TASKS file', async () => {
    const directory = await createTempDir('tasks-');
    mkdirSync(join(directory, 'checks', 't1'), { recursive: true });
    writeFileSync(join(directory, 'checks', 't1', 'test.sh'), 'true\n');
    writeFileSync(join(directory, 'solve-t1.sh'), 'true\n');
    const file = join(directory, 'tasks.jsonl');
    const line = {
      id: 't1',
      message: 'm',
      tests: 'checks/t1',
      solution: 'solve-t1.sh',
      timeout_sec: 300,
      verifier: { timeout_sec: 60, env: { MODE: 'x' } },
      limits: { cpus: 0.5, memory: 1073741824, layer: 2147483648 },
    };
    expect(parseTasks(JSON.stringify(line), file)).toEqual([
      { ...line, tests: join(directory, 'checks', 't1'), solution: join(directory, 'solve-t1.sh') },
    ]);
    expect(problem(JSON.stringify({ ...line, tests: 'nowhere' }), file)).toBe(
      `${file}:1 (tests): ${join(directory, 'nowhere')} is not a directory.`,
    );
    expect(problem(JSON.stringify({ ...line, timeout_sec: 'x' }), file)).toMatch(/tasks\.jsonl:1 \(timeout_sec\): /);
    expect(problem(JSON.stringify({ ...line, limits: { memory: '1G' } }), file)).toMatch(/tasks\.jsonl:1 \(limits\.memory\): /);
  });
});
