import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { readInvocationRequest, readJournal, readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { HOSTILE_OUTPUT, recordRun, threeIterations, type RecordedRun } from './inspect/recorded-run.test-support.js';
import { runDelta } from './test-support.js';

let first: RecordedRun;
let second: RecordedRun;
let runId: string;

beforeAll(async () => {
  first = await recordRun(threeIterations);
  second = await recordRun([{ content: 'Short run.', usage: { prompt_tokens: 10, completion_tokens: 5 } }], {
    agent: first.agent,
    workspace: 'W002',
  });
  runId = readLatestRunId(first.workDir)!;
}, 120_000);
afterAll(() => cleanupTempDirs());

const paths = () => runPaths(first.workDir, runId);

describe('recorded runs', () => {
  it('completed, with the token total and estimated cost in metadata.json', () => {
    expect(first.result.exitCode).toBe(0);
    expect(second.result.exitCode).toBe(0);
    const metadata = readMetadata(paths().metadata);
    expect(metadata.usage).toEqual({ prompt_tokens: 6000, completion_tokens: 170, total_tokens: 6170 });
    expect(metadata.estimated_cost).toMatchObject({ currency: 'USD', input_per_million: 2.5, output_per_million: 10 });
    expect(metadata.estimated_cost!.amount).toBeCloseTo(0.0167, 10);
  });
});

describe('delta list', () => {
  it('lists a workspace: id, status, iterations, tokens, cost, start and duration', async () => {
    const result = await runDelta(['list', '-w', first.workDir]);
    expect(result.exitCode).toBe(0);
    const [header, row, ...rest] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^RUN ID\s+STATUS\s+ITER\s+TOKENS\s+CACHED\s+REASONING\s+COST\s+STARTED\s+DURATION\s+TASK$/);
    expect(rest).toEqual([]);
    expect(row).toMatch(
      new RegExp(`^${runId}\\s+COMPLETED\\s+3/30\\s+6,170\\s+-\\s+-\\s+0\\.0167 USD\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\s+\\d`),
    );
    expect(result.stdout).not.toContain('\u001b[');
  });

  it('lists every workspace of an agent, latest first', async () => {
    const result = await runDelta(['list', '--agent', first.agent]);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN ID\s+WORKSPACE\s+STATUS/);
    expect(lines.slice(1, -1).map((line) => line.split(/\s+/).slice(1, 4))).toEqual([
      ['W002', 'COMPLETED', '1/30'],
      ['W001', 'COMPLETED', '3/30'],
    ]);
    expect(lines.at(-1)).toMatch(/^total: 2 runs \(2 COMPLETED\) · [\d,]+ tokens · cost \d+\.\d+ USD$/);
    // From the agent directory itself, without flags.
    expect((await runDelta(['list'], { cwd: first.agent })).stdout).toBe(result.stdout);
  });

  it('prints JSON lines with --json, and says so when there are no runs', async () => {
    const json = await runDelta(['list', '-w', first.workDir, '--json']);
    expect(JSON.parse(json.stdout.trim())).toMatchObject({ run_id: runId, metadata: { status: 'COMPLETED', iterations: 3 } });
    const empty = await runDelta(['list', '-w', join(first.agent, 'workspaces', 'W009')]);
    expect(empty.exitCode).toBe(0);
    expect(empty.stderr).toContain('No runs yet');
  });
});

describe('delta log', () => {
  it('prints the journal as a transcript: user message, thoughts, calls with arguments, results, the end', async () => {
    const result = await runDelta(['log', '-w', first.workDir]);
    expect(result.exitCode).toBe(0);
    const text = result.stdout;
    const order = [
      `run ${runId} started`,
      'USER      Inspect me',
      '── iteration 1',
      'THOUGHT   Writing a file and printing HTML.',
      'CALL      write_file {"path":"a.txt","content":"alpha\\n"} [call_write]',
      '$ tee -- a.txt',
      'RESULT    write_file SUCCESS, exit 0 [call_write]',
      'CALL      print_html {} [call_html]',
      HOSTILE_OUTPUT,
      '── iteration 2',
      'CALL      fail {"why":"luck"} [call_fail]',
      'RESULT    fail FAILED, exit 7 [call_fail]',
      '── iteration 3',
      'THOUGHT   All done: a.txt says alpha.',
      'no tool calls: the final answer (3,000 tokens in, 20 out)',
      'END       COMPLETED after 3 iterations',
    ];
    let position = 0;
    for (const piece of order) {
      const found = text.indexOf(piece, position);
      expect(found, `"${piece}" after position ${position} in:\n${text}`).toBeGreaterThanOrEqual(0);
      position = found + piece.length;
    }
    expect(text).not.toContain('\u001b[');
  });

  it('prints the raw JSONL with --raw', async () => {
    const result = await runDelta(['log', '-w', first.workDir, '--raw']);
    expect(result.stdout).toBe(readFileSync(paths().journal, 'utf8'));
  });

  it('reads another run with --run-id and refuses an unknown one with exit 2', async () => {
    const other = readLatestRunId(second.workDir)!;
    const result = await runDelta(['log', '-w', second.workDir, '--run-id', other]);
    expect(result.stdout).toContain('Short run.');
    const unknown = await runDelta(['log', '-w', second.workDir, '--run-id', '20200101_000000_zzzzzz']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('There is no run "20200101_000000_zzzzzz"');
    expect(unknown.stderr).toContain(other);
    const nowhere = await runDelta(['log', '-w', first.agent]);
    expect(nowhere.exitCode).toBe(2);
    expect(nowhere.stderr).toContain('holds no runs');
  });
});

describe('delta show', () => {
  it('prints the exact request bytes and the response of invocation N or by id', async () => {
    const invocations = readdirSync(paths().invocationsDir).sort();
    expect(invocations).toHaveLength(3);
    const request = readInvocationRequest(paths(), invocations[1]!);
    expect(JSON.parse(request)).toMatchObject({ model: 'test-model', messages: expect.any(Array) });
    expect((await runDelta(['show', 'invocation', '2', '-w', first.workDir, '--request'])).stdout).toBe(request);
    expect((await runDelta(['show', 'invocation', invocations[1]!, '-w', first.workDir, '--request'])).stdout).toBe(request);

    const full = await runDelta(['show', 'invocation', '3', '-w', first.workDir]);
    expect(full.exitCode).toBe(0);
    expect(full.stdout).toContain(`== invocation ${invocations[2]}`);
    expect(full.stdout).toMatch(/iteration 3, model test-model, SUCCESS, \d+ms, tokens 3,000 in \+ 20 out/);
    expect(full.stdout).toContain('== request (exact bytes sent)');
    expect(full.stdout).toContain('All done: a.txt says alpha.');

    const missing = await runDelta(['show', 'invocation', '4', '-w', first.workDir]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('Give a number from 1 to 3');
  });

  it('prints the command line, stdout and stderr of an action, by id or number', async () => {
    const result = await runDelta(['show', 'action', 'call_fail', '-w', first.workDir]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('== action call_fail (fail, iteration 2)');
    expect(result.stdout).toMatch(/FAILED, exit 7, \d+ms/);
    expect(result.stdout).toContain(`== command\nsh -c 'echo "bad $1" >&2; exit 7' -- luck\n== stdout (0 bytes)\n== stderr`);
    expect(result.stdout).toContain('== stderr (9 bytes)\nbad luck\n');

    const html = await runDelta(['show', 'action', '2', '-w', first.workDir, '--stdout']);
    expect(html.stdout).toBe(`${HOSTILE_OUTPUT}\n`);
    const stderr = await runDelta(['show', 'action', 'call_html', '-w', first.workDir, '--stderr']);
    expect(stderr.stdout).toBe('to stderr\n');

    const unknown = await runDelta(['show', 'action', 'nope', '-w', first.workDir]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('has no tool execution "nope"');
    const wrongKind = await runDelta(['show', 'thing', '1', '-w', first.workDir]);
    expect(wrongKind.exitCode).toBe(2);
  });
});

describe('delta log -f', () => {
  it('follows a live run until ENGINE_END', async () => {
    const slow = [
      { content: 'Sleeping.', tool_calls: [{ id: 'call_slow', name: 'slow', arguments: { seconds: '1' } }] },
      { content: 'Awake.', delay_ms: 500 },
    ];
    const pending = recordRun(slow, { agent: first.agent, workspace: 'W003' });
    const workDir = join(first.agent, 'workspaces', 'W003');
    await expect
      .poll(() => readLatestRunIdSafe(workDir), { timeout: 20_000, interval: 50, message: 'the run did not start' })
      .toBeDefined();
    const follow = await runDelta(['log', '-w', workDir, '-f']);
    const run = await pending;
    expect(run.result.exitCode).toBe(0);
    expect(follow.exitCode).toBe(0);
    expect(follow.stdout).toContain('THOUGHT   Awake.');
    expect(follow.stdout.trimEnd().split('\n').at(-1)).toContain('END       COMPLETED after 2 iterations');
    const journal = readJournal(runPaths(workDir, readLatestRunId(workDir)!).journal);
    expect(follow.stdout.match(/^\d\d:\d\d:\d\d {2}/gm)).toHaveLength(journal.length);
  });
});

function readLatestRunIdSafe(workDir: string): string | undefined {
  try {
    return readLatestRunId(workDir);
  } catch {
    return undefined;
  }
}
