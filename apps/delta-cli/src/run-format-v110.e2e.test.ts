// Issue 46, item 19: `delta run --format json|text` in the shape v1.10 scripts read. The JSON object holds
// ours and v1.10's names at once (RunResult v2.0: result, metrics, metadata); --format text prints v1.10's
// summary block; the default (no --format) still prints just the answer.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { schemaProblems, type Schema } from './result/json-schema.test-support.js';
import { DELTA_BIN, runDelta } from './test-support.js';

const SCHEMA = JSON.parse(readFileSync(new URL('../../../docs/schemas/run-result.v2.schema.json', import.meta.url), 'utf8')) as Schema;
const jq = spawnSync('sh', ['-c', 'command -v jq'], { encoding: 'utf8' }).status === 0;

afterEach(cleanupTestResources);

async function setup(script: ScriptStep[] | ((request: { body: { messages?: unknown[] } }) => ScriptStep)) {
  const server = await startFakeLlm({ script });
  const agent = await createTempAgent({
    agentYaml: { name: 'v110', llm: { model: 'm', max_retries: 0 }, tools: [{ name: 'note', exec: 'tee note.txt', stdin: 'text' }] },
  });
  return { agent, work: join(await createTempDir('v110-'), 'ws'), env: modelEnv(server) };
}

const twoSteps: ScriptStep[] = [{ content: 'Noting.', tool_calls: [{ name: 'note', arguments: { text: 'hi' } }] }, { content: 'Noted.' }];

describe('delta run --format json, as a v1.10 script reads it', () => {
  it('has RunResult v2.0 fields beside ours: schema_version "2.0", result, metrics, metadata.agent_name', async () => {
    const { agent, work, env } = await setup(twoSteps);
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Take a note', '--format', 'json'], { env });
    expect(run.exitCode, run.stderr).toBe(0);
    const object = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(schemaProblems(SCHEMA, object)).toEqual([]);
    const metadata = readMetadata(runPaths(work, readLatestRunId(work)!).metadata);
    expect(object).toMatchObject({
      schema_version: '2.0',
      run_id: metadata.run_id,
      status: 'COMPLETED',
      result: 'Noted.',
      final_answer: 'Noted.',
      metrics: { iterations: 2, start_time: metadata.created_at, end_time: metadata.end_time },
      metadata: { agent_name: 'v110', workspace_path: work },
      agent_name: 'v110',
      iterations: 2,
      interaction: null,
    });
    const metrics = object.metrics as { duration_ms: number };
    expect(metrics.duration_ms).toBe(Date.parse(metadata.end_time!) - Date.parse(metadata.created_at));
  });

  it.skipIf(!jq)('answers the jq lines of a v1.10 script', async () => {
    const { agent, work, env } = await setup(twoSteps);
    const pipeline =
      '"$NODE" "$DELTA" run --agent "$AGENT" -w "$WORK" -m "Take a note" --format json > "$WORK.json" && ' +
      'jq -r .result "$WORK.json" && jq .metrics.iterations "$WORK.json" && jq -r .metadata.agent_name "$WORK.json" && jq -r .schema_version "$WORK.json"';
    const shell = await runProcess('sh', ['-c', pipeline], {
      env: { ...process.env, ...env, NODE: process.execPath, DELTA: DELTA_BIN, AGENT: agent, WORK: work },
    });
    expect(shell.exitCode, shell.stderr).toBe(0);
    expect(shell.stdout).toBe('Noted.\n2\nv110\n2.0\n');
  });

  it('gives a waiting run its interaction, and a failed one no result', async () => {
    const waiting = await setup([{ tool_calls: [{ name: 'ask_human', arguments: { prompt: 'Which colour?' } }] }]);
    const paused = await runDelta(['run', '--agent', waiting.agent, '-w', waiting.work, '-m', 'Pick', '--format', 'json'], {
      env: waiting.env,
    });
    expect(paused.exitCode).toBe(101);
    const object = JSON.parse(paused.stdout) as Record<string, unknown>;
    expect(schemaProblems(SCHEMA, object)).toEqual([]);
    expect(object).toMatchObject({
      status: 'WAITING_FOR_INPUT',
      result: null,
      interaction: { prompt: 'Which colour?', input_type: 'text', sensitive: false },
    });
    expect((object.metrics as { end_time: unknown }).end_time).toEqual(expect.any(String));

    const failing = await setup([{ error: { status: 400, message: 'The model refuses.' } }]);
    const failed = await runDelta(['run', '--agent', failing.agent, '-w', failing.work, '-m', 'x', '--format', 'json'], {
      env: failing.env,
    });
    expect(failed.exitCode).toBe(1);
    const failure = JSON.parse(failed.stdout) as Record<string, unknown>;
    expect(schemaProblems(SCHEMA, failure)).toEqual([]);
    expect(failure).toMatchObject({ status: 'FAILED', result: null });
    expect(failure.error).toContain('The model refuses.');
  });
});

describe('delta run --format text, as a v1.10 script reads it', () => {
  it('prints the summary block with the answer under it; without --format, only the answer', async () => {
    const { agent, work, env } = await setup([...twoSteps, { content: 'Plain.' }]);
    const text = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Take a note', '--format', 'text'], { env });
    expect(text.exitCode, text.stderr).toBe(0);
    const runId = readLatestRunId(work)!;
    const line = '─'.repeat(80);
    expect(text.stdout).toMatch(
      new RegExp(
        `^${line}\\nRun ID: ${runId}\\nStatus: COMPLETED\\n${line}\\n\\nExecution Summary:\\n  • Iterations: 2\\n  • Duration: \\d+\\.\\d\\ds\\n` +
          `  • Start Time: \\S+\\n  • End Time: \\S+\\n\\nFinal Response:\\n${line}\\nNoted\\.\\n${line}\\n$`,
      ),
    );
    const plain = await runDelta(['continue', '-w', work, '-m', 'again'], { env });
    expect(plain.stdout).toBe('Plain.\n');
  });
});
