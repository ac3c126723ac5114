import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type RecordedRequest } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { graderHash } from '@delta/experiments';
import { runDelta } from './test-support.js';

// --grader model:NAME: a model of the batch's models file judges each completed run. The judge is a
// testkit server of its own with its own key; its request and answer are kept beside the grade.

const AGENT_KEY = 'sk-agent-0123456789';
const JUDGE_KEY = 'sk-judge-9876543210';

afterEach(() => cleanupTempDirs());

function userText(request: RecordedRequest): string {
  return String((request.body as { messages: Array<{ role: string; content: unknown }> }).messages.at(-1)?.content ?? '');
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: 'utf8' })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile());
}

describe('delta batch --grader model:NAME', () => {
  it("scores each run with the judge entry's model, records its request and answer, and keeps its key out of OUT", async () => {
    // Each run first has its tool print its whole environment (kept in the run's records, under OUT).
    const agentModel = await startFakeLlm({
      script: (request) => {
        const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
        if (!messages.some((message) => message.role === 'tool')) return { tool_calls: [{ name: 'show_env', arguments: {} }] };
        const task = String(messages.find((message) => message.role === 'user')?.content ?? '');
        return { content: task.includes('2 + 2') ? 'It is 4.' : 'No idea.' };
      },
    });
    const judge = await startFakeLlm({
      script: (request) =>
        userText(request).includes('It is 4.')
          ? {
              content: 'Correct.\n{"score": 1, "passed": true, "reason": "the answer is 4"}',
              usage: { prompt_tokens: 200, completion_tokens: 20 },
            }
          : { content: '{"score": 0, "passed": false, "reason": "no answer given"}', usage: { prompt_tokens: 200, completion_tokens: 20 } },
    });
    try {
      const agent = await createTempAgent({
        agentYaml: {
          name: 'judged',
          llm: { model: 'agent-model', max_retries: 0 },
          tools: [{ name: 'show_env', description: 'Print the environment', exec: 'env' }],
        },
      });
      const directory = await createTempDir('judge-');
      const tasksFile = join(directory, 'tasks.jsonl');
      writeFileSync(
        tasksFile,
        `${[
          { id: 'add', message: 'What is 2 + 2?', expected: '4' },
          { id: 'hard', message: 'Prove P != NP.' },
        ]
          .map((task) => JSON.stringify(task))
          .join('\n')}\n`,
      );
      const modelsFile = join(directory, 'models.yaml');
      writeFileSync(
        modelsFile,
        [
          'models:',
          '  - name: worker',
          '    model: agent-model',
          `    base_url: ${agentModel.baseUrl}`,
          '    api_key_env: AGENT_KEY',
          '  - name: judge',
          '    model: judge-model',
          `    base_url: ${judge.baseUrl}`,
          '    api_key_env: JUDGE_KEY',
          '    temperature: 0',
          '    pricing: {input_per_million: 1, output_per_million: 5}',
          '',
        ].join('\n'),
      );
      const out = join(directory, 'out');
      const env = { AGENT_KEY, JUDGE_KEY };
      const args = [
        'batch',
        tasksFile,
        '--agent',
        agent,
        '--out',
        out,
        '--models',
        modelsFile,
        '--model',
        'worker',
        '--grader',
        'model:judge',
      ];
      const result = await runDelta(args, { env });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/COMPLETED +add \/ worker \/ 1 .*score 1/);
      expect(result.stdout).toMatch(/COMPLETED +hard \/ worker \/ 1 .*score 0/);

      // The judge was asked with its own key, model and parameters, about each run's answer.
      expect(judge.requests).toHaveLength(2);
      for (const request of judge.requests) {
        expect(request.headers.authorization).toBe(`Bearer ${JUDGE_KEY}`);
        expect(request.body).toMatchObject({ model: 'judge-model', temperature: 0 });
      }
      expect(agentModel.requests.every((request) => request.headers.authorization === `Bearer ${AGENT_KEY}`)).toBe(true);

      const runDir = join(out, 'add', 'worker', '1', '.delta', 'run-1');
      const grade = JSON.parse(readFileSync(join(runDir, 'grade.json'), 'utf8'));
      expect(grade).toMatchObject({
        score: 1,
        passed: true,
        grader: 'model:judge',
        details: {
          reason: 'the answer is 4',
          judge: { model: 'judge', model_id: 'judge-model' },
          usage: { input_tokens: 200, output_tokens: 20, cost: 0.0003 },
        },
      });
      const request = readFileSync(grade.details.judge.request, 'utf8');
      expect(request).toContain("The agent's final answer:\\nIt is 4.");
      expect(existsSync(grade.details.judge.response)).toBe(true);

      // The judge's tokens and cost are totalled apart from the agent's: in the report, its --json and the page.
      const report = await runDelta(['report', out]);
      expect(report.stdout).toContain('model:judge');
      expect(report.stdout).toContain(
        "Judging, apart from the agent's tokens and cost above:\n  grader 2a5e5e3b7c9f (model:judge): 400 tokens in · 40 out · cost 0.0006 USD (2 runs judged)\n".replace(
          '2a5e5e3b7c9f',
          graderHash('model:judge'),
        ),
      );
      const json = JSON.parse((await runDelta(['report', out, '--json'])).stdout);
      expect(json.grader).toMatchObject({
        command: 'model:judge',
        usage: { runs: 2, input_tokens: 400, output_tokens: 40, cost: 0.0006, currency: 'USD' },
      });
      // The agent's model has no pricing: its runs have no cost, whatever the judge's.
      expect(json.by_model[0]).toMatchObject({ name: 'worker', cost: null });
      const page = readFileSync((await runDelta(['view', out])).stdout.trim(), 'utf8');
      expect(page).toContain('apart from the runs: tokens 400 in · 40 out · cost 0.0006 USD (2 runs judged)</p>');
      // A command grader gets none of the models file's keys either (it prints its environment: its output is
      // kept with its grade, and .delta/ is read only in the run's sandbox, where it runs).
      const regrade = await runDelta(['grade', out, '--grader', `env; echo '{"score": 1}'`], { env });
      expect(regrade.exitCode, regrade.stderr).toBe(0);
      const printed = filesUnder(out).filter((file) => file.endsWith('.grader/stdout.log'));
      const graderEnv = printed.map((file) => readFileSync(file, 'utf8')).join('');
      expect(graderEnv).toContain('DELTA_TASK_ID=');
      expect(graderEnv).not.toContain(JUDGE_KEY);
      expect(graderEnv).not.toContain(AGENT_KEY);
      // Neither key is anywhere under OUT.
      for (const file of filesUnder(out)) {
        const bytes = readFileSync(file, 'latin1');
        expect(bytes.includes(JUDGE_KEY), file).toBe(false);
        expect(bytes.includes(AGENT_KEY), file).toBe(false);
      }
    } finally {
      await agentModel.close();
      await judge.close();
    }
  });

  it('is refused before any run when the batch has no models file, or the judge entry or its key is missing', async () => {
    const agent = await createTempAgent({ agentYaml: { name: 'judged', llm: { model: 'm' }, tools: [] } });
    const directory = await createTempDir('judge-');
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 'a', message: 'hi' })}\n`);
    const noFile = await runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'o1'), '--grader', 'model:judge'], {
      env: { DELTA_API_KEY: 'k', DELTA_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(noFile.exitCode).toBe(2);
    expect(noFile.stderr).toContain('--grader model:judge names a judge model, and the batch has no models file.');
    expect(existsSync(join(directory, 'o1'))).toBe(false);

    const modelsFile = join(directory, 'models.yaml');
    writeFileSync(
      modelsFile,
      'models:\n  - name: worker\n    model: m\n    base_url: http://127.0.0.1:9/v1\n  - name: judge\n    model: j\n    base_url: http://127.0.0.1:9/v1\n    api_key_env: JUDGE_KEY\n',
    );
    const base = ['batch', tasksFile, '--agent', agent, '--models', modelsFile, '--model', 'worker'];
    const unknown = await runDelta([...base, '--out', join(directory, 'o2'), '--grader', 'model:jduge']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('has no model named "jduge"');
    const noKey = await runDelta([...base, '--out', join(directory, 'o3'), '--grader', 'model:judge']);
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stderr).toContain('reads its key from the environment variable JUDGE_KEY, which is not set');
  });
});
