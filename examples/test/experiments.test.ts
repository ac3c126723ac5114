import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { readMetadata } from '@delta/journal';
import { DELTA_BIN, FAKE_LLM_BIN, REPOSITORY_ROOT, runProcess } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/experiments', () => {
  it("runs the README's batch over the 10 tasks, graded by agent.yaml's grader, and the report gives 8 of 10", async () => {
    const directory = await createTempDir('experiments-');
    const example = join(directory, 'experiments');
    cpSync(join(REPOSITORY_ROOT, 'examples/experiments'), example, { recursive: true });
    const out = join(directory, 'results');
    const batch = await runProcess(
      process.execPath,
      [
        FAKE_LLM_BIN,
        '--script',
        join(example, 'fake-llm.yaml'),
        '--',
        process.execPath,
        DELTA_BIN,
        'batch',
        join(example, 'tasks.jsonl'),
        '--agent',
        example,
        '--out',
        out,
        '--concurrency',
        '1',
      ],
      { env: { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined } },
    );
    expect(batch.stderr).toBe('');
    expect(batch.exitCode).toBe(0);
    expect(batch.stdout).toContain('10 runs: 10 completed, 0 failed');

    const tasks = readFileSync(join(example, 'tasks.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; expected: string });
    expect(tasks).toHaveLength(10);
    for (const task of tasks) {
      const runDir = join(out, task.id, 'gpt-4o-mini', '1', '.delta', 'run-1');
      expect(readMetadata(join(runDir, 'metadata.json')).status).toBe('COMPLETED');
      const grade = JSON.parse(readFileSync(join(runDir, 'grade.json'), 'utf8'));
      expect(grade.details.expected, task.id).toBe(task.expected);
      expect(grade.score, task.id).toBe(task.id === 'sub-2' || task.id === 'div-2' ? 0 : 1);
    }
    // The tool really ran: expr's answer is the observation the model was given.
    const journal = readFileSync(join(out, 'mul-1', 'gpt-4o-mini', '1', '.delta', 'run-1', 'journal.jsonl'), 'utf8');
    expect(journal).toContain('391');

    const report = await runProcess(process.execPath, [DELTA_BIN, 'report', out]);
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toMatch(/gpt-4o-mini\s+10\s+10\s+0\s+0\s+0\s+8\/10\s+2\s+0\s+80% \[49-94\]\s+2\s/);
    const csv = await runProcess(process.execPath, [DELTA_BIN, 'report', out, '--csv']);
    expect(csv.stdout.split('\n')[1]).toMatch(/^model,gpt-4o-mini,10,10,0,0,10,pass_rate,0\.8,0\.49/);
  });

  it('runs a two-model batch concurrently against one delta-fake-llm whose script has one script per model (when:)', async () => {
    const directory = await createTempDir('experiments-');
    const example = join(directory, 'experiments');
    cpSync(join(REPOSITORY_ROOT, 'examples/experiments'), example, { recursive: true });
    const out = join(directory, 'compare');
    const log = join(directory, 'requests.jsonl');
    const batch = await runProcess(
      process.execPath,
      [
        FAKE_LLM_BIN,
        '--script',
        join(example, 'fake-llm-two-models.yaml'),
        '--log',
        log,
        '--',
        process.execPath,
        DELTA_BIN,
        'batch',
        join(example, 'tasks.jsonl'),
        '--agent',
        example,
        '--out',
        out,
        '--model',
        'gpt-4o-mini,gpt-4o',
        '--concurrency',
        '4',
      ],
      { env: { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined } },
    );
    expect(batch.stderr).toBe('');
    expect(batch.exitCode).toBe(0);
    expect(batch.stdout).toContain('20 runs: 20 completed, 0 failed');
    const wrong: Record<string, string[]> = { 'gpt-4o-mini': ['sub-2', 'div-2'], 'gpt-4o': [] };
    const tasks = readFileSync(join(example, 'tasks.jsonl'), 'utf8').trim().split('\n');
    for (const line of tasks) {
      const task = JSON.parse(line) as { id: string; expected: string };
      for (const model of ['gpt-4o-mini', 'gpt-4o']) {
        const grade = JSON.parse(readFileSync(join(out, task.id, model, '1', '.delta', 'run-1', 'grade.json'), 'utf8'));
        expect(grade.score, `${task.id} / ${model}`).toBe(wrong[model]!.includes(task.id) ? 0 : 1);
      }
    }
    // Every request was answered from its own model's script: 40 requests, each 200.
    const requests = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { status: number });
    expect(requests.filter((request) => request.status === 200)).toHaveLength(40);
    expect(requests).toHaveLength(40);

    // A request that no step matches: a model error naming the model and the last message.
    const stray = await runProcess(
      process.execPath,
      [
        FAKE_LLM_BIN,
        '--script',
        join(example, 'fake-llm-two-models.yaml'),
        '--',
        process.execPath,
        DELTA_BIN,
        'run',
        '--agent',
        example,
        '-w',
        join(directory, 'stray'),
        '--model',
        'gpt-4o',
        '-m',
        'What is 2 + 2?',
      ],
      { env: { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined } },
    );
    expect(stray.exitCode).not.toBe(0);
    expect(stray.stderr).toContain('no step of the script matches request 1 (model "gpt-4o", its last user message: "What is 2 + 2?")');
  });
});
