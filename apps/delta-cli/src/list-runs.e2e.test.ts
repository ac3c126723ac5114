import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, runProcess, startFakeLlm, type FakeLlm, modelEnv } from '@delta/testkit';
import { listRunIds, readLatestRunId } from '@delta/journal';
import { DELTA_BIN, runDelta } from './test-support.js';

let server: FakeLlm;
let agent: string;
let work: string;
let older: string;
let latest: string;
let otherWorkspaceRun: string;
let outside: string;
let outsideRun: string;
let failedRun: string;
let strangerRun: string;

beforeAll(async () => {
  server = await startFakeLlm({
    script: (request: { body: { messages?: { content?: unknown }[] } }) =>
      String(request.body.messages?.at(-1)?.content).includes('fail') ? { error: { status: 400, message: 'no' } } : { content: 'done' },
  });
  agent = await createTempAgent({ agentYaml: { name: 'lister', llm: { model: 'm', max_retries: 0 } } });
  work = join(agent, 'workspaces', 'W001');
  const env = modelEnv(server);
  const run = async (workspace: string, extra: string[] = [], message = 'go', exitCode = 0, by = agent) => {
    const result = await runDelta(['run', '--agent', by, '-w', workspace, '-m', message, ...extra], { env });
    expect(result.exitCode).toBe(exitCode);
    return readLatestRunId(workspace)!;
  };
  older = await run(work);
  latest = await run(work, ['--run-id', 'chosen']);
  otherWorkspaceRun = await run(join(agent, 'workspaces', 'W002'));
  // A workspace outside the agent's workspaces/, given with -w, and another agent's run in it.
  outside = join(await createTempDir('list-outside-'), 'elsewhere');
  outsideRun = await run(outside, [], 'Summarise   the\nreport in  outside/notes.txt, all of it please');
  failedRun = await run(outside, ['--new'], 'this one will fail', 1);
  const stranger = await createTempAgent({ agentYaml: { name: 'stranger', llm: { model: 'm', max_retries: 0 } } });
  strangerRun = await run(outside, ['--new'], 'not the lister', 0, stranger);
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
        .slice(1, -1)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual([latest, older]);
    expect(table.stdout.trimEnd().split('\n').at(-1)).toMatch(/^total: 2 runs \(2 COMPLETED\) · [\d,]+ tokens$/);

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

  it('lists every workspace of an agent from the agent directory, -w workspaces too, --first across them', async () => {
    const raw = await runDelta(['list-runs', '--format', 'raw'], { cwd: agent });
    expect(raw.stdout).toBe(`${failedRun}\n${outsideRun}\n${otherWorkspaceRun}\n${latest}\n${older}\n`);
    expect(raw.stdout).not.toContain(strangerRun);
    expect(readFileSync(join(agent, 'workspaces', 'OTHER_WORKSPACES'), 'utf8')).toBe(`${outside}\n`);
    expect((await runDelta(['list-runs', '--agent', agent, '--first', '--format', 'raw'])).stdout).toBe(`${failedRun}\n`);
  });

  it("shows each run's task and workspace, the totals, and keeps the statuses asked for", async () => {
    const table = await runDelta(['list', '--agent', agent], { cwd: outside });
    expect(table.exitCode).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN ID\s+WORKSPACE\s+STATUS\s+.*\s+DURATION\s+TASK$/);
    expect(lines[1]).toMatch(new RegExp(`^${failedRun}\\s+\\.\\s+FAILED\\s.*\\sthis one will fail$`));
    // One line, whitespace folded, cut at 40 characters.
    expect(lines[2]).toMatch(/\sCOMPLETED\s.*\sSummarise the report in outside\/notes\.t…$/);
    expect(lines[3]).toMatch(new RegExp(`^${otherWorkspaceRun}\\s+W002\\s+COMPLETED\\s.*\\sgo$`));
    expect(lines.at(-1)).toMatch(/^total: 5 runs \(4 COMPLETED, 1 FAILED\) · [\d,]+ tokens$/);
    expect(lines).toHaveLength(7);

    const failed = await runDelta(['list', '--agent', agent, '--status', 'failed,Interrupted', '--format', 'raw']);
    expect(failed.stdout).toBe(`${failedRun}\n`);
    const none = await runDelta(['list', '-w', work, '--status', 'WAITING_FOR_INPUT']);
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(`None of the 2 runs in ${work} is WAITING_FOR_INPUT.\n`);
    const bad = await runDelta(['list', '-w', work, '--status', 'done']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--status takes run statuses separated by commas, got "done".');
    expect(bad.stderr).toContain('RUNNING, WAITING_FOR_INPUT, COMPLETED, FAILED, INTERRUPTED');
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

  it('runs on when the agent directory cannot record a -w workspace, and says what is lost', async () => {
    const blocked = await createTempAgent({ agentYaml: { name: 'blocked', llm: { model: 'm', max_retries: 0 } } });
    // OTHER_WORKSPACES is a directory here, so it cannot be appended to (running as root, a mode would not stop the write).
    mkdirSync(join(blocked, 'workspaces', 'OTHER_WORKSPACES'), { recursive: true });
    const where = join(await createTempDir('list-blocked-'), 'w');
    const env = modelEnv(server);
    const result = await runDelta(['run', '--agent', blocked, '-w', where, '-m', 'go'], { env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`note: ${where} could not be listed in ${join(blocked, 'workspaces', 'OTHER_WORKSPACES')} (`);
    expect(result.stderr).toContain(`\`delta list --agent\` will not show its runs (\`delta list -w ${where}\` will).`);
  });
});
