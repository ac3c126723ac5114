import { spawnSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { schemaProblems, type Schema } from './result/json-schema.test-support.js';
import { DELTA_BIN, runDelta } from './test-support.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../../../docs/schemas/run-result.v2.schema.json', import.meta.url), 'utf8')) as Schema;

/** jq, which .ci/run installs. Only a machine where that install failed may skip the jq step, loudly. */
const jq = spawnSync('sh', ['-c', 'command -v jq'], { encoding: 'utf8' }).status === 0;
const jqUnavailable = process.env.DELTA_TEST_JQ_UNAVAILABLE;
if (!jq && jqUnavailable) {
  console.warn(`\n!!!!!!!!\n!!! SKIPPING the jq step of the --format json test: jq could not be installed (${jqUnavailable}).\n!!!!!!!!\n`);
}

afterEach(cleanupTestResources);

const agentYaml = {
  name: 'formats',
  llm: { model: 'm', max_retries: 0, pricing: { input_per_million: 1, output_per_million: 2, currency: 'USD' } },
  tools: [{ name: 'note', description: 'Write a note', exec: 'tee note.txt', stdin: 'text' }],
};

async function setup(script: ScriptStep[] | ((request: { body: { messages?: unknown[] } }, index: number) => ScriptStep)) {
  const server = await startFakeLlm({ script });
  const agent = await createTempAgent({ agentYaml });
  const work = join(await createTempDir('format-'), 'ws');
  return { agent, work, env: modelEnv(server), server };
}

/** stdout must be exactly one JSON object on one line, conforming to the documented schema. */
function resultObject(stdout: string): Record<string, unknown> {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  const object = JSON.parse(stdout) as Record<string, unknown>;
  expect(schemaProblems(SCHEMA, object)).toEqual([]);
  return object;
}

const twoSteps: ScriptStep[] = [
  { content: 'Noting.', tool_calls: [{ name: 'note', arguments: { text: 'hi' } }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
  { content: 'The note says "hi".', usage: { prompt_tokens: 200, completion_tokens: 20 } },
];

describe('delta run --format json', () => {
  it('prints one result object, naming the agent, that jq reads: delta run … --format json | jq -e .final_answer', async () => {
    const { agent, work, env } = await setup(twoSteps);
    const saved = join(work, '..', 'result.json');
    const pipeline = `"$NODE" "$DELTA" run --agent "$AGENT" -w "$WORK" -m 'Take a note' --format json | tee "$SAVED"${jq || !jqUnavailable ? ' | jq -e .final_answer' : ''}`;
    const shell = await runProcess('sh', ['-c', pipeline], {
      env: { ...process.env, ...env, NODE: process.execPath, DELTA: DELTA_BIN, AGENT: agent, WORK: work, SAVED: saved },
    });
    expect(shell.stderr).not.toContain('Error');
    expect(shell.exitCode).toBe(0);
    if (jq || !jqUnavailable) expect(shell.stdout).toBe('"The note says \\"hi\\"."\n');

    const object = resultObject(readFileSync(saved, 'utf8'));
    const runId = readLatestRunId(work)!;
    const paths = runPaths(work, runId);
    const metadata = readMetadata(paths.metadata);
    expect(object).toMatchObject({
      schema_version: '2.0',
      run_id: runId,
      agent_name: 'formats',
      agent_home: metadata.agent_home,
      status: 'COMPLETED',
      exit_code: 0,
      final_answer: 'The note says "hi".',
      question: null,
      reason: null,
      error: null,
      iterations: 2,
      usage: { prompt_tokens: 300, completion_tokens: 30, total_tokens: 330 },
      estimated_cost: { amount: 0.00036, currency: 'USD' },
      started_at: metadata.created_at,
      ended_at: metadata.end_time,
      work_dir: work,
      run_dir: paths.runDir,
      journal: paths.journal,
    });
    expect(realpathSync(object.agent_home as string)).toBe(realpathSync(agent));
    expect(object.duration_ms).toBeGreaterThan(0);
    expect(readFileSync(object.journal as string, 'utf8')).toContain('"type":"ENGINE_END"');
  });

  it('gives the pending question, then delta continue --format json gives the answer of the same run', async () => {
    const { agent, work, env } = await setup((request) =>
      (request.body.messages ?? []).length <= 2
        ? { tool_calls: [{ name: 'ask_human', arguments: { prompt: 'Which colour?', input_type: 'text' } }] }
        : { content: 'Blue it is.' },
    );
    const paused = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Pick', '--format', 'json'], { env });
    expect(paused.exitCode).toBe(101);
    const waiting = resultObject(paused.stdout);
    const paths = runPaths(work, waiting.run_id as string);
    expect(waiting).toMatchObject({
      status: 'WAITING_FOR_INPUT',
      exit_code: 101,
      final_answer: null,
      question: {
        prompt: 'Which colour?',
        input_type: 'text',
        sensitive: false,
        response_file: join(paths.interactionDir, 'response.txt'),
      },
      ended_at: null,
      iterations: 1,
    });
    expect((waiting.question as { request_id: string }).request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(paused.stderr).toContain('Agent paused.');

    const answered = await runDelta(['continue', '-w', work, '-m', 'blue', '--format', 'json'], { env });
    expect(answered.exitCode).toBe(0);
    expect(resultObject(answered.stdout)).toMatchObject({
      run_id: waiting.run_id,
      status: 'COMPLETED',
      final_answer: 'Blue it is.',
      question: null,
      iterations: 2,
    });
  });

  it('says FAILED with the error, and INTERRUPTED with the reason, each with its exit code', async () => {
    const failing = await setup([{ error: { status: 400, message: 'The model refuses.' } }]);
    const failed = await runDelta(['run', '--agent', failing.agent, '-w', failing.work, '-m', 'x', '--format', 'json'], {
      env: failing.env,
    });
    expect(failed.exitCode).toBe(1);
    const object = resultObject(failed.stdout);
    expect(object).toMatchObject({ status: 'FAILED', exit_code: 1, final_answer: null });
    expect(object.error).toContain('The model refuses.');
    await failing.server.close();

    const looping = await setup(() => ({ tool_calls: [{ name: 'note', arguments: { text: 'again' } }] }));
    const budget = await runDelta(
      ['run', '--agent', looping.agent, '-w', looping.work, '-m', 'x', '--max-iterations', '2', '--format', 'json'],
      {
        env: looping.env,
      },
    );
    expect(budget.exitCode).toBe(3);
    const stopped = resultObject(budget.stdout);
    expect(stopped).toMatchObject({ status: 'INTERRUPTED', exit_code: 3, iterations: 2, final_answer: null });
    expect(stopped.reason).toContain('2');
  });

  it('prints nothing on stdout when the command fails before a run exists', async () => {
    const { agent, work } = await setup([{ content: 'never asked' }]);
    const noKey = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'x', '--format', 'json']);
    expect(noKey.exitCode).toBe(2);
    expect(noKey.stdout).toBe('');
    expect(noKey.stderr).toContain('No API key');
  });
});

describe('--format raw and text, and what --format refuses', () => {
  it('raw prints the final answer byte for byte; without --format it gets a newline, as before', async () => {
    const { agent, work, env } = await setup([{ content: 'line one\nline two' }, { content: 'again' }, { content: 'third' }]);
    const raw = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'x', '--format', 'raw'], { env });
    expect(raw.exitCode).toBe(0);
    expect(raw.stdout).toBe('line one\nline two');
    const text = await runDelta(['continue', '-w', work, '-m', 'y'], { env });
    expect(text.stdout).toBe('again\n');
    const continued = await runDelta(['continue', '-w', work, '-m', 'z', '--format', 'raw'], { env });
    expect(continued.stdout).toBe('third');
  });

  it('refuses an unknown format and --json with --format json, naming the options', async () => {
    const { agent, work, env, server } = await setup([{ content: 'never asked' }]);
    const unknown = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'x', '--format', 'yaml'], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('--format must be text, json or raw, got "yaml".');
    const both = await runDelta(['continue', '-w', work, '--json', '--format', 'json'], { env });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--json and --format json both choose what goes to stdout');
    expect(unknown.stdout + both.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });
});
