import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

// delta replay --ignore REGEX and --keep-going: a tool that prints a clock and a fresh temporary directory
// never replays the same; its volatile text can be left out, and every divergence listed.

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await cleanupTempDirs();
});

// Three calls of a tool whose output holds volatile text, each after the other, then the answer.
const agentYaml = {
  name: 'volatile',
  llm: { model: 'test-model' },
  tools: [
    {
      name: 'stamp',
      description: 'Print the time and a new temporary directory',
      shell: 'echo "step ${n} at $(date +%s%N) in $(mktemp -d)"',
      parameters: [{ name: 'n', type: 'integer' }],
    },
  ],
};

async function recordedRun(): Promise<{ work: string; env: Record<string, string> }> {
  llm = await startFakeLlm({
    script: [...[1, 2, 3].map((n) => ({ content: `Step ${n}.`, tool_calls: [{ name: 'stamp', arguments: { n } }] })), { content: 'Done.' }],
  });
  const agent = await createTempAgent({ agentYaml });
  const work = join(await createTempDir('work-'), 'ws');
  const env = { DELTA_BASE_URL: llm.baseUrl };
  const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Stamp three times', '-q'], { env });
  expect(run.exitCode, run.stderr).toBe(0);
  return { work, env };
}

const CLOCK = '\\d{19}';
const TEMPORARY = '/tmp/tmp\\.\\w+';

describe('delta replay: volatile text', () => {
  it('diverges on a clock and a temporary path, and with --ignore for each is identical', async () => {
    const { work, env } = await recordedRun();
    const plain = await runDelta(['replay', '-w', work], { env });
    expect(plain.exitCode).toBe(1);
    expect(plain.stdout).toContain("diverged at iteration 1, action call_1_1 (stamp): the tool's observation differs");

    // The clock alone is not enough: the temporary directory differs too.
    const clockOnly = await runDelta(['replay', '-w', work, '--ignore', CLOCK], { env });
    expect(clockOnly.exitCode).toBe(1);
    expect(clockOnly.stdout).toMatch(/- step 1 at <ignored> in \/tmp\/tmp\.\w+/);

    const masked = await runDelta(['replay', '-w', work, '--ignore', CLOCK, '--ignore', TEMPORARY], { env });
    expect(masked.stdout).toContain(
      'identical: 4 model calls, every request and tool result as recorded (text matching --ignore left out)',
    );
    expect(masked.exitCode).toBe(0);
    const json = JSON.parse((await runDelta(['replay', '-w', work, '--ignore', CLOCK, '--ignore', TEMPORARY, '--json'], { env })).stdout);
    expect(json).toMatchObject({ identical: true, divergence: null, divergences: [] });
  });

  it('--keep-going reports every divergence, each tool result once (not again in the requests that carry it)', async () => {
    const { work, env } = await recordedRun();
    const all = await runDelta(['replay', '-w', work, '--keep-going', '--json'], { env });
    expect(all.exitCode).toBe(1);
    const result = JSON.parse(all.stdout);
    expect(result.iterations).toBe(4);
    expect(result.divergences.map((divergence: { summary: string }) => divergence.summary)).toEqual([
      "iteration 1, action call_1_1 (stamp): the tool's observation differs",
      "iteration 2, action call_2_1 (stamp): the tool's observation differs",
      "iteration 3, action call_3_1 (stamp): the tool's observation differs",
    ]);
    expect(result.divergence.summary).toBe(result.divergences[0].summary);

    const text = await runDelta(['replay', '-w', work, '--keep-going', '--ignore', TEMPORARY], { env });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain('diverged in 3 places (--keep-going');
    expect(text.stdout).toMatch(/^3\. iteration 3, action call_3_1 \(stamp\): the tool's observation differs$/m);
    expect(text.stdout).toMatch(/in <ignored>/);
  });

  it('refuses a pattern that is not a regular expression, naming it (exit 2)', async () => {
    const refused = await runDelta(['replay', '-w', '.', '--ignore', '([a-z']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--ignore "([a-z" is not a regular expression');
  });
});
