// Issue 42, fault 5, through the built `delta`: builtin:regex matches in a worker thread (bundled as an
// evaluated script), so a catastrophic pattern is a grade error for its run and the batch ends.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await cleanupTestResources();
});

describe('delta batch --grader builtin:regex', () => {
  it('grades the good answer and stops the catastrophic pattern at its bound, with a message naming it', async () => {
    llm = await startFakeLlm({
      script: (request) => {
        const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
        return { content: (messages.find((message) => message.role === 'user')?.content ?? '').replace(/^Say /, '') };
      },
    });
    const agent = await createTempAgent({ agentYaml: { name: 'sayer', llm: { model: 'm', max_retries: 0 } } });
    const directory = await createTempDir('regex-cli-');
    const tasksFile = join(directory, 'tasks.jsonl');
    const tasks = [
      { id: 'good', message: 'Say 42', expected: '^\\d+$' },
      { id: 'stuck', message: `Say ${'a'.repeat(40)}!`, expected: '^(\\w+\\s?)*$' },
    ];
    writeFileSync(tasksFile, `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
    const out = join(directory, 'out');
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--grader', 'builtin:regex'], {
      env: { DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const grade = (task: string) => JSON.parse(readFileSync(join(out, task, 'm', '1', '.delta', 'run-1', 'grade.json'), 'utf8'));
    expect(grade('good')).toMatchObject({ score: 1, passed: true });
    expect(grade('stuck')).toMatchObject({
      score: null,
      error: expect.stringContaining('builtin:regex: the pattern ran longer than 1000 ms on this answer'),
    });
  });
});
