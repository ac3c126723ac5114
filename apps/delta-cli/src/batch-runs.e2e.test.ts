import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, readMetadata, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { agentYaml, jsonEvents, llm, runDirectory, setup, startLlm, stopLlm } from './batch.test-support.js';

beforeAll(() => startLlm());
afterEach(() => cleanupTempDirs());
afterAll(stopLlm);

describe('delta batch', () => {
  it('runs each task x repeat in OUT/<task>/<model>/<k>/ and prints a line per run and a summary', async () => {
    const { agent, tasksFile, out, env } = await setup(3);
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--repeat', '2'], { env });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    for (const task of ['task-1', 'task-2', 'task-3']) {
      for (const repeat of [1, 2]) {
        expect(readMetadata(runPaths(runDirectory(out, task, repeat), 'run-1').metadata).status).toBe('COMPLETED');
        expect(result.stdout).toContain(`COMPLETED task-${task.slice(5)} / fake-model / ${repeat} (started, 3 iterations`);
      }
    }
    expect(result.stdout).toContain('6 runs: 6 completed, 0 failed, 0 interrupted, 0 waiting for input');
    expect(result.stdout).toContain(`Report: delta report ${out}`);
  });

  it('names the line of a bad task (exit 2) and refuses another batch in the same --out', async () => {
    const { agent, tasksFile, out, env } = await setup(2);
    writeFileSync(tasksFile, '{"id": "a", "message": "x"}\n{"id": "a b", "message": "y"}\n');
    const bad = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(`${tasksFile}:2 (id): the id "a b" cannot name a directory`);
    expect(bad.stderr).not.toContain('    at ');

    writeFileSync(tasksFile, '{"id": "a", "message": "x"}\n');
    expect((await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env })).exitCode).toBe(0);
    const other = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--repeat', '2'], { env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('--repeat 2, the batch has 1');
  });

  it('--model a,b --repeat 2 over 3 tasks gives 12 runs, each model in its own directory and requests; --set reaches each request and ENGINE_START', async () => {
    const { agent, tasksFile, out, env } = await setup(3);
    const before = llm.requests.length;
    const models = [
      ['model-a', 'model-a'],
      ['org/model:b', 'org_model_b'],
    ] as const;
    const args = [
      'batch',
      tasksFile,
      '--agent',
      agent,
      '--out',
      out,
      '--model',
      'model-a,org/model:b',
      '--repeat',
      '2',
      '--set',
      'llm.temperature=0',
    ];
    const result = await runDelta([...args, '--concurrency', '4'], { env });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('12 runs: 12 completed');
    for (const task of ['task-1', 'task-2', 'task-3']) {
      for (const [model, directory] of models) {
        for (const repeat of [1, 2]) {
          const paths = runPaths(join(out, task, directory, String(repeat)), 'run-1');
          expect(readMetadata(paths.metadata).status).toBe('COMPLETED');
          const start = readJournal(paths.journal).find((event) => event.type === 'ENGINE_START') as {
            model?: string;
            config?: { llm: Record<string, unknown> };
          };
          expect(start.model).toBe(model);
          expect(start.config?.llm).toMatchObject({ model, temperature: 0 });
        }
      }
    }
    const requests = llm.requests.slice(before).map((request) => request.body as { model: string; temperature: number });
    expect(requests).toHaveLength(36);
    expect(requests.filter((body) => body.model === 'model-a')).toHaveLength(18);
    expect(requests.filter((body) => body.model === 'org/model:b')).toHaveLength(18);
    expect(requests.every((body) => body.temperature === 0)).toBe(true);
    const definition = JSON.parse(readFileSync(join(out, '.batch', 'definition.json'), 'utf8'));
    expect(definition.models).toEqual([
      { name: 'model-a', directory: 'model-a', override: true },
      { name: 'org/model:b', directory: 'org_model_b', override: true },
    ]);
    expect(definition.set).toEqual(['llm.temperature=0']);
    // The same command again: nothing to do; with another --set, refused.
    const again = await runDelta([...args, '--json'], { env });
    expect(jsonEvents(again.stdout).at(-1)).toMatchObject({ type: 'batch_end', completed: 12, executed: 0 });
    const other = await runDelta(
      ['batch', tasksFile, '--agent', agent, '--out', out, '--model', 'model-a,org/model:b', '--repeat', '2', '--set', 'llm.temperature=1'],
      { env },
    );
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('--set: ["llm.temperature=1"], the batch has ["llm.temperature=0"]');
  });

  it('a bad --set key exits 2 with the message a bad agent.yaml key gets, saying it came from --set', async () => {
    const { agent, tasksFile, out, env } = await setup(1);
    const misspelled = await createTempAgent({ agentYaml: { ...agentYaml, llm: { model: 'fake-model', temprature: 0 } } });
    const fromFile = await runDelta(['run', '--agent', misspelled, '-w', join(misspelled, 'ws'), '-m', 'hi'], { env });
    expect(fromFile.exitCode).toBe(2);
    const fileMessage = /llm\.temprature: (.*)/.exec(fromFile.stderr)![1]!;
    const fromFlag = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--set', 'llm.temprature=0'], { env });
    expect(fromFlag.exitCode).toBe(2);
    expect(fromFlag.stderr).toContain(`llm.temprature: ${fileMessage} (from --set llm.temprature=0)`);
    expect(fromFlag.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});
