import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readJournal, readMetadata, runPaths } from '@delta/journal';
import { runDelta } from './test-support.js';

afterEach(cleanupTestResources);

type Request = { body: { messages?: Array<{ role: string }> } };
const answered = (request: Request) => (request.body.messages ?? []).some((message) => message.role === 'tool');

/**
 * `barrier` returns only once two runs have reached it, so two runs that both finish were running at the
 * same moment (each leaves `arrived.<run id>` in the shared workspace).
 */
const agentYaml = {
  name: 'chosen-ids',
  llm: { model: 'm', max_retries: 0 },
  tools: [
    {
      name: 'barrier',
      description: 'Wait for the other run',
      shell:
        'touch "arrived.$DELTA_RUN_ID"; n=0; while [ "$(ls arrived.* | wc -l)" -lt 2 ]; do n=$((n+1)); [ $n -gt 1200 ] && exit 1; sleep 0.05; done; echo together',
    },
  ],
};

async function setup(script: ScriptStep[] | ((request: Request, index: number) => ScriptStep)) {
  const server = await startFakeLlm({ script });
  const agent = await createTempAgent({ agentYaml });
  const work = join(await createTempDir('run-id-'), 'ws');
  const env = modelEnv(server);
  return { agent, work, env, server };
}

describe('delta run --run-id', () => {
  it('two runs started at once in one workspace, --run-id a and --run-id b, are two runs with those ids', async () => {
    const { agent, work, env } = await setup((request, index) =>
      answered(request) ? { content: `finished (request ${index + 1})` } : { tool_calls: [{ name: 'barrier', arguments: {} }] },
    );
    const [a, b] = await Promise.all(
      ['a', 'b'].map((id) => runDelta(['run', '--agent', agent, '-w', work, '--run-id', id, '-m', `task ${id}`], { env })),
    );
    expect(a!.stderr).not.toContain('Error');
    expect(b!.stderr).not.toContain('Error');
    expect([a!.exitCode, b!.exitCode]).toEqual([0, 0]);
    expect(readFileSync(join(work, 'arrived.a'), 'utf8')).toBe('');
    expect(existsSync(join(work, 'arrived.b'))).toBe(true);

    for (const id of ['a', 'b']) {
      const paths = runPaths(work, id);
      expect(readMetadata(paths.metadata)).toMatchObject({ run_id: id, status: 'COMPLETED', initial_message: `task ${id}`, iterations: 2 });
      const events = readJournal(paths.journal);
      expect(events[0]).toMatchObject({ type: 'ENGINE_START', run_id: id });
      expect(events.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({ status: 'SUCCESS' });
    }
    // LATEST names one of them, whole; nothing else was left in .delta/.
    expect(['a\n', 'b\n']).toContain(readFileSync(join(work, '.delta', 'LATEST'), 'utf8'));
    expect(readdirSync(join(work, '.delta')).sort()).toEqual(['LATEST', 'VERSION', 'a', 'b', 'workspace-env.json']);
    const listed = await runDelta(['list-runs', '--format', 'raw'], { cwd: work });
    expect(listed.stdout.split('\n').sort()).toEqual(['', 'a', 'b']);
  });

  it('a chosen id works with continue, log, show, view and list', async () => {
    const { agent, work, env, server } = await setup([{ content: 'first answer' }, { content: 'later run' }, { content: 'second answer' }]);
    expect((await runDelta(['run', '--agent', agent, '-w', work, '--run-id', 'nightly-1', '-m', 'one'], { env })).exitCode).toBe(0);
    // A later run becomes the latest: nightly-1 is reached by its id only.
    expect((await runDelta(['run', '--agent', agent, '-w', work, '--run-id', 'other', '-m', 'three'], { env })).exitCode).toBe(0);

    const continued = await runDelta(['continue', '-w', work, '--run-id', 'nightly-1', '-m', 'two'], { env });
    expect(continued.exitCode).toBe(0);
    expect(continued.stdout).toBe('second answer\n');
    const events = readJournal(runPaths(work, 'nightly-1').journal);
    expect(events.filter((event) => event.type === 'USER_MESSAGE').map((event) => event.content)).toEqual(['one', 'two']);

    const log = await runDelta(['log', '-w', work, '--run-id', 'nightly-1']);
    expect(log.exitCode).toBe(0);
    expect(log.stdout).toContain('run nightly-1 started');
    expect(log.stdout).toContain('THOUGHT   second answer');

    const show = await runDelta(['show', 'invocation', '2', '-w', work, '--run-id', 'nightly-1', '--request']);
    expect(show.exitCode).toBe(0);
    expect(show.stdout).toBe(server.requests[2]!.rawBody);

    const output = join(work, 'page.html');
    const view = await runDelta(['view', '-w', work, '--run-id', 'nightly-1', '-o', output]);
    expect(view.exitCode).toBe(0);
    expect(readFileSync(output, 'utf8')).toContain('nightly-1');

    const list = await runDelta(['list', '-w', work]);
    expect(list.stdout.split('\n').map((line) => line.split(/\s+/)[0])).toEqual(['RUN', 'other', 'nightly-1', 'total:', '']);
    const json = await runDelta(['list-runs', '-w', work, '--format', 'json']);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).run_id),
    ).toEqual(['other', 'nightly-1']);
  });

  it('refuses an unsafe id and an id already used, naming --run-id, before anything is written', async () => {
    const { agent, work, env, server } = await setup([{ content: 'done' }]);
    const unsafe = await runDelta(['run', '--agent', agent, '-w', work, '--run-id', '../x', '-m', 'go'], { env });
    expect(unsafe.exitCode).toBe(2);
    expect(unsafe.stderr).toContain('Error: --run-id "../x" cannot be used: it may hold only letters, digits');
    expect(unsafe.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(work)).toBe(false);

    expect((await runDelta(['run', '--agent', agent, '-w', work, '--run-id', 'mine', '-m', 'go'], { env })).exitCode).toBe(0);
    const journal = readFileSync(runPaths(work, 'mine').journal, 'utf8');
    const again = await runDelta(['run', '--agent', agent, '-w', work, '--run-id', 'mine', '-m', 'go again'], { env });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toBe(
      `Error: --run-id mine: a run with that id already exists in ${work}.\n` +
        `Hint: Choose another --run-id, or continue that run: delta continue -w ${work} --run-id mine\n`,
    );
    expect(readFileSync(runPaths(work, 'mine').journal, 'utf8')).toBe(journal);
    expect(server.requests).toHaveLength(1);

    for (const reserved of ['LATEST', 'tmp']) {
      const refused = await runDelta(['run', '--agent', agent, '-w', work, '--run-id', reserved, '-m', 'go'], { env });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain(`--run-id "${reserved}" cannot be used: "${reserved}" is reserved`);
    }
    const continued = await runDelta(['continue', '-w', work, '--run-id', '../x', '-m', 'go'], { env });
    expect(continued.exitCode).toBe(2);
    expect(continued.stderr).toContain('--run-id "../x" cannot be used');
  });
});
