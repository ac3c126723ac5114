import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempDir, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeRun, parseJudgeGrader } from './model-judge.js';
import type { ModelEntry } from './models-file.js';

afterEach(() => cleanupTempDirs());

const input = { task: { id: 't1', message: 'What is 2 + 2?', expected: '4' }, final_answer: 'It is 4.' };

describe('a model-graded grader', () => {
  it('parses model:NAME and nothing else', () => {
    expect(parseJudgeGrader('model:judge')).toEqual({ name: 'judge' });
    expect(parseJudgeGrader('model:judge:/abs/prompt.md')).toEqual({ name: 'judge', promptFile: '/abs/prompt.md' });
    expect(parseJudgeGrader('model:')).toBeUndefined();
    expect(parseJudgeGrader('sh grade.sh')).toBeUndefined();
  });

  it("asks the entry's server with its key and parameters, records request and answer, and scores from the last JSON line", async () => {
    const server = await startFakeLlm({
      script: [
        {
          content: 'The answer matches.\n{"score": 0.75, "reason": "right number, extra words"}',
          usage: { prompt_tokens: 1000, completion_tokens: 100 },
        },
      ],
    });
    try {
      const entry: ModelEntry = {
        name: 'judge',
        model: 'judge-model',
        base_url: server.baseUrl,
        api_key_env: 'JUDGE_KEY',
        temperature: 0,
        pricing: { input_per_million: 2, output_per_million: 10 },
      } as ModelEntry;
      const recordDir = join(await createTempDir('judge-'), 'judge');
      const verdict = await judgeRun(input, { entry, environment: { JUDGE_KEY: 'sk-judge-secret' }, recordDir });
      expect(verdict).toMatchObject({
        score: 0.75,
        passed: true,
        details: { reason: 'right number, extra words', usage: { input_tokens: 1000, output_tokens: 100, cost: 0.003 } },
      });
      const request = server.requests[0]!;
      expect(request.headers.authorization).toBe('Bearer sk-judge-secret');
      const body = request.body as { model: string; temperature: number; messages: Array<{ role: string; content: string }> };
      expect(body).toMatchObject({ model: 'judge-model', temperature: 0 });
      expect(body.messages[1]!.content).toBe('Task:\nWhat is 2 + 2?\n\nExpected (JSON):\n"4"\n\nThe agent\'s final answer:\nIt is 4.');
      expect(readFileSync(join(recordDir, 'request.json'), 'utf8')).toBe(request.rawBody);
      expect(readFileSync(join(recordDir, 'response.json'), 'utf8')).toContain('right number, extra words');
    } finally {
      await server.close();
    }
  });

  it("finds an entry's endpoint without base_url as a run does: the agent's .env, then DELTA_BASE_URL, never the run's workspace", async () => {
    const [fromEnvironment, fromAgent] = [
      await startFakeLlm({ script: [{ content: '{"score": 1}' }] }),
      await startFakeLlm({ script: [{ content: '{"score": 0.5}' }] }),
    ];
    try {
      const entry = { name: 'judge', model: 'j', api_key_env: 'JUDGE_KEY' } as ModelEntry;
      const agentHome = await createTempDir('judge-agent-');
      const run = { workDir: await createTempDir('judge-work-'), agentHome };
      // The run's tools wrote this: never the judge's endpoint.
      writeFileSync(join(run.workDir, '.env'), 'DELTA_BASE_URL=http://127.0.0.1:9/v1\n');
      const environment = { JUDGE_KEY: 'sk-judge-secret', DELTA_BASE_URL: fromEnvironment.baseUrl };
      const first = await judgeRun(input, { entry, environment, run, recordDir: join(agentHome, 'first') });
      expect(first.score).toBe(1);
      expect(fromEnvironment.requests[0]!.headers.authorization).toBe('Bearer sk-judge-secret');
      writeFileSync(join(agentHome, '.env'), `DELTA_BASE_URL=${fromAgent.baseUrl}\n`);
      const second = await judgeRun(input, { entry, environment, run, recordDir: join(agentHome, 'second') });
      expect(second.score, JSON.stringify(second)).toBe(0.5);
      expect(fromAgent.requests).toHaveLength(1);
    } finally {
      await Promise.all([fromEnvironment.close(), fromAgent.close()]);
    }
  });

  it('redacts a key the judge quotes, and gives an error, no score, for an answer without a verdict line', async () => {
    const server = await startFakeLlm({ script: [{ content: 'I saw sk-judge-secret and I think it is fine.' }] });
    try {
      const entry = { name: 'judge', model: 'j', base_url: server.baseUrl, api_key_env: 'JUDGE_KEY' } as ModelEntry;
      const recordDir = join(await createTempDir('judge-'), 'judge');
      const verdict = await judgeRun(input, { entry, environment: { JUDGE_KEY: 'sk-judge-secret' }, recordDir });
      expect(verdict.score).toBeNull();
      expect(verdict.error).toBe('the judge model judge answered without a last line {"score": <0 to 1>, ...}');
      expect(JSON.stringify(verdict)).not.toContain('sk-judge-secret');
      expect(existsSync(join(recordDir, 'response.json'))).toBe(true);
      expect(readFileSync(join(recordDir, 'response.json'), 'utf8')).not.toContain('sk-judge-secret');
    } finally {
      await server.close();
    }
  });

  it('says which variable is missing before asking anything', async () => {
    const entry = { name: 'judge', model: 'j', base_url: 'http://127.0.0.1:9/v1', api_key_env: 'JUDGE_KEY' } as ModelEntry;
    await expect(judgeRun(input, { entry, environment: {}, recordDir: await createTempDir('judge-') })).rejects.toThrow(
      /The model "judge" of the models file reads its key from the environment variable JUDGE_KEY, which is not set/,
    );
  });
});
