import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { copyExample, latestRun, observation, runWithRecordedModel } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/3-advanced/code-reviewer', () => {
  it('reviews with the project guide and a computed code map in context, a secrets gate, and a run-end hook', async () => {
    const agent = await copyExample('3-advanced/code-reviewer');
    const workspace = join(await createTempDir('shop-'), 'shop');
    cpSync(join(agent, 'sample-workspace'), workspace, { recursive: true });

    const result = await runWithRecordedModel(join(agent, 'fake-llm.yaml'), [
      'run',
      '--agent',
      agent,
      '-w',
      workspace,
      '-m',
      'Review the pricing code',
      '-y',
    ]);
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('Verdict: changes requested, with 6 findings in REVIEW.md.\n');

    const review = readFileSync(join(workspace, 'REVIEW.md'), 'utf8');
    expect(review).toMatch(/^Verdict: changes requested\n/);
    expect(review.match(/^- /gm)).toHaveLength(6);
    const { runId, runDir, metadata, journal } = latestRun(workspace);
    expect(metadata).toMatchObject({ status: 'COMPLETED', iterations: 5 });

    // The mechanical checks found what the review cites.
    expect(observation(journal, 'call_1_2')).toBe(
      'src/pricing.py:9: public function total has no docstring\nsrc/pricing.py:10: unfinished work (TODO)\nsrc/pricing.py:11: print in library code (use logging)\n[exit code: 1]',
    );
    // The gate refused to open the secrets file: the tool never ran, and the model was told why.
    expect(observation(journal, 'call_2_1')).toBe(
      'Blocked by the pre_tool_execution hook: credentials.json may hold secrets; reviews never read secret files. Mention the file in the review instead.',
    );
    expect(existsSync(join(runDir, 'io/tool_executions/call_2_1'))).toBe(false);
    expect(observation(journal, 'call_3_1')).toContain('src/cart.py:2:from pricing import apply_discount, total');

    // Every request held the project guide and the code map, in that order, before the conversation.
    expect(result.requests).toHaveLength(5);
    for (const { messages } of result.requests) {
      expect(messages[1]!.content).toContain('Money is an integer number of cents');
      expect(messages[2]!.content).toContain('- src/pricing.py (12 lines): apply_discount, total');
    }
    expect(readdirSync(join(runDir, 'io', 'context'))).toHaveLength(5);

    // on_run_end kept the history; each hook execution is audited.
    expect(readFileSync(join(workspace, '.delta', 'review-history.log'), 'utf8')).toBe(`${runId} COMPLETED 6 findings\n`);
    const audits = journal.filter((event) => event.type === 'HOOK_EXECUTION_AUDIT');
    expect(audits.map((event) => (event as { hook_name: string }).hook_name)).toEqual([
      ...Array(5).fill('pre_tool_execution'),
      'on_run_end',
    ]);
  });
});
