import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal, readLatestRunId, runPaths, type EngineStartEvent } from '@delta/journal';
import { runDelta } from './test-support.js';

afterEach(cleanupTestResources);

const agentYaml = { name: 'overridden', llm: { model: 'file-model', temperature: 0.7 }, tools: [] };

function engineStarts(work: string): EngineStartEvent[] {
  const runId = readLatestRunId(work)!;
  return readJournal(runPaths(work, runId).journal).filter((event): event is EngineStartEvent => event.type === 'ENGINE_START');
}

describe('--model, --base-url and --set', () => {
  it('reach the request the model receives, ENGINE_START and delta show run (never the key)', async () => {
    const server = await startFakeLlm({ script: [{ content: 'first' }, { content: 'second' }] });
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('work-'), 'ws');
    const env = { DELTA_API_KEY: 'secret-key-123', DELTA_BASE_URL: 'http://127.0.0.1:9/v1' };
    const run = await runDelta(
      [
        'run',
        '--agent',
        agent,
        '-w',
        work,
        '-m',
        'hi',
        '--model',
        'flag-model',
        '--base-url',
        server.baseUrl,
        '--set',
        'llm.temperature=0',
        '--set',
        'llm.seed=7',
      ],
      { env },
    );
    expect(run.stderr).not.toContain('Error');
    expect(run.exitCode).toBe(0);
    const body = server.requests[0]!.body;
    expect(body.model).toBe('flag-model');
    expect(body.temperature).toBe(0);
    expect(body.seed).toBe(7);

    const [start] = engineStarts(work);
    const config = start!.config as { llm: Record<string, unknown>; base_url: string; overrides: string[] };
    expect(config.llm).toMatchObject({ model: 'flag-model', temperature: 0, seed: 7 });
    expect(config.base_url).toBe(server.baseUrl);
    expect(config.overrides).toEqual(['--model flag-model', '--set llm.temperature=0', '--set llm.seed=7']);
    const journal = readFileSync(runPaths(work, readLatestRunId(work)!).journal, 'utf8');
    expect(journal).not.toContain('secret-key-123');

    const show = await runDelta(['show', 'run', '-w', work], { env });
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toContain('"temperature": 0');
    expect(show.stdout).toContain('"model": "flag-model"');
    expect(show.stdout).not.toContain('secret-key-123');

    // delta continue takes them too; without them the file's values are back.
    const resumed = await runDelta(['continue', '-w', work, '-m', 'again', '--set', 'llm.temperature=1.5', '--base-url', server.baseUrl], {
      env,
    });
    expect(resumed.exitCode).toBe(0);
    expect(server.requests[1]!.body.temperature).toBe(1.5);
    expect(server.requests[1]!.body.model).toBe('file-model');
    expect((engineStarts(work)[1]!.config as { llm: Record<string, unknown> }).llm.temperature).toBe(1.5);
  });

  it('a bad --set key exits 2 with the message agent.yaml gets for it, saying it came from --set', async () => {
    const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: 'http://127.0.0.1:9/v1' };
    const misspelled = await createTempAgent({ agentYaml: { ...agentYaml, llm: { model: 'file-model', temprature: 0 } } });
    const fromFile = await runDelta(['run', '--agent', misspelled, '-w', join(misspelled, 'ws'), '-m', 'hi'], { env });
    expect(fromFile.exitCode).toBe(2);
    const fileMessage = /llm\.temprature: (.*)/.exec(fromFile.stderr)![1]!;
    expect(fileMessage).toContain('did you mean "temperature"?');

    const agent = await createTempAgent({ agentYaml });
    const fromFlag = await runDelta(['run', '--agent', agent, '-w', join(agent, 'ws'), '-m', 'hi', '--set', 'llm.temprature=0'], { env });
    expect(fromFlag.exitCode).toBe(2);
    expect(fromFlag.stderr).toContain(`llm.temprature: ${fileMessage} (from --set llm.temprature=0)`);
    expect(fromFlag.stderr).not.toMatch(/\n\s+at /);

    // A value of the wrong type, a key agent.yaml would only warn about, and a malformed entry: all refused.
    const wrongType = await runDelta(['run', '--agent', agent, '-w', join(agent, 'ws'), '-m', 'hi', '--set', 'max_iterations=many'], {
      env,
    });
    expect(wrongType.exitCode).toBe(2);
    expect(wrongType.stderr).toMatch(/max_iterations: .*found the string "many" \(from --set max_iterations=many\)/);
    const unknown = await runDelta(['run', '--agent', agent, '-w', join(agent, 'ws'), '-m', 'hi', '--set', 'colour=blue'], { env });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(
      'colour: unknown key "colour" is ignored (check its spelling and indentation) (from --set colour=blue)',
    );
    const malformed = await runDelta(['run', '--agent', agent, '-w', join(agent, 'ws'), '-m', 'hi', '--set', 'temperature'], { env });
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toContain('--set temperature: there is no KEY= before the value');
  });
});
