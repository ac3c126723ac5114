import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, runProcess, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { listRunIds, readLatestRunId } from '@delta/journal';
import { DELTA_BIN, runDelta } from './test-support.js';

let server: FakeLlm;
let agent: string;
let work: string;
let older: string;
let latest: string;
let otherWorkspaceRun: string;

beforeAll(async () => {
  server = await startFakeLlm({ script: () => ({ content: 'done' }) });
  agent = await createTempAgent({ agentYaml: { name: 'lister', llm: { model: 'm', max_retries: 0 } } });
  work = join(agent, 'workspaces', 'W001');
  const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl };
  const run = async (workspace: string, extra: string[] = []) => {
    const result = await runDelta(['run', '--agent', agent, '-w', workspace, '-m', 'go', ...extra], { env });
    expect(result.exitCode).toBe(0);
    return readLatestRunId(workspace)!;
  };
  older = await run(work);
  latest = await run(work, ['--run-id', 'chosen']);
  otherWorkspaceRun = await run(join(agent, 'workspaces', 'W002'));
}, 120_000);
afterAll(async () => {
  await server.close();
  await cleanupTempDirs();
});

describe('delta list-runs', () => {
  it('RUN=$(delta list-runs --first --format raw) inside a workspace yields the latest run id', async () => {
    const shell = await runProcess('sh', ['-c', 'RUN=$("$NODE" "$DELTA" list-runs --first --format raw) && printf "[%s]" "$RUN"'], {
      cwd: work,
      env: { ...process.env, NODE: process.execPath, DELTA: DELTA_BIN },
    });
    expect(shell.exitCode).toBe(0);
    expect(shell.stdout).toBe(`[${latest}]`);
    expect(latest).toBe('chosen');
    expect(shell.stderr).toBe('');
  });

  it('is delta list: the same table, raw ids latest first, JSON lines, and -w from elsewhere', async () => {
    const table = await runDelta(['list-runs', '-w', work]);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toBe((await runDelta(['list', '-w', work])).stdout);
    expect(
      table.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual([latest, older]);

    expect((await runDelta(['list-runs', '--format', 'raw'], { cwd: work })).stdout).toBe(`${latest}\n${older}\n`);
    expect((await runDelta(['list-runs', '-w', work, '--format', 'raw'])).stdout).toBe(`${latest}\n${older}\n`);

    const json = await runDelta(['list-runs', '-w', work, '--format', 'json']);
    const lines = json.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.run_id, line.work_dir, line.metadata.status])).toEqual([
      [latest, work, 'COMPLETED'],
      [older, work, 'COMPLETED'],
    ]);
    expect(json.stdout).toBe((await runDelta(['list', '-w', work, '--json'])).stdout);

    const first = await runDelta(['list-runs', '-w', work, '--first', '--format', 'json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ run_id: latest });
    const firstTable = await runDelta(['list-runs', '-w', work, '--first']);
    expect(firstTable.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('lists every workspace of an agent from the agent directory, --first across them', async () => {
    const raw = await runDelta(['list-runs', '--format', 'raw'], { cwd: agent });
    expect(raw.stdout).toBe(`${otherWorkspaceRun}\n${latest}\n${older}\n`);
    expect((await runDelta(['list-runs', '--agent', agent, '--first', '--format', 'raw'])).stdout).toBe(`${otherWorkspaceRun}\n`);
  });

  it('prints nothing on stdout for a workspace without runs, and refuses a bad --format', async () => {
    const empty = join(agent, 'workspaces', 'W009');
    mkdirSync(empty);
    const none = await runDelta(['list-runs', '--first', '--format', 'raw'], { cwd: empty });
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('No runs yet');
    expect(listRunIds(empty)).toEqual([]);

    const bad = await runDelta(['list-runs', '-w', work, '--format', 'csv']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--format must be text, json or raw, got "csv".');
    const both = await runDelta(['list', '-w', work, '--json', '--format', 'raw']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('--json and --format raw contradict each other.');
  });
});
