import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm, modelEnv } from '@delta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';
import { chromium, chromiumUnavailable, runChromium, warnIfChromiumSkipped } from './headless-chromium.test-support.js';

// `delta view OUT` for a batch: one page with a sortable, filterable table of runs, each linked to its page.

warnIfChromiumSkipped('the delta view (batch) browser test');

const dumpDom = (url: string) => runChromium(['--virtual-time-budget=5000', '--dump-dom', url]);

let llm: FakeLlm;
let out: string;
let page: string;
let html: string;

beforeAll(async () => {
  llm = await startFakeLlm({
    script: () => ({ content: 'done' }),
  });
  const agent = await createTempAgent({ agentYaml: { name: 'viewer', llm: { model: 'fake/model:1', max_retries: 0 } } });
  const directory = await createTempDir();
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(tasksFile, ['1', '2', '3'].map((n) => JSON.stringify({ id: `task-${n}`, message: `do ${n}` })).join('\n'));
  out = join(directory, 'out');
  const env = modelEnv(llm);
  const grader = 'case "$DELTA_TASK_ID" in task-1) exit 0;; *) exit 1;; esac';
  const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--repeat', '2', '--grader', grader], { env });
  expect(batch.exitCode).toBe(0);
  const result = await runDelta(['view', out]);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  page = result.stdout.trim();
  html = readFileSync(page, 'utf8');
}, 120_000);
afterAll(async () => {
  await llm.close();
  await cleanupTempDirs();
});

describe('delta view OUT (a batch)', () => {
  it('writes OUT/index.html, self-contained, with a run page for each run it links to', () => {
    expect(page).toBe(join(out, 'index.html'));
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html.match(/<script\b/g)).toHaveLength(1);
    // Run pages; the heatmap's cells link into the page itself (#task=...).
    const links = [...html.matchAll(/href="([^"#][^"]*)"/g)].map((match) => match[1]!);
    expect(links).toHaveLength(6);
    expect(links[0]).toBe('task-1/fake_model_1/1/.delta/run-1/view.html');
    for (const link of links) expect(existsSync(resolve(dirname(page), link)), link).toBe(true);
    expect(readFileSync(resolve(dirname(page), links[0]!), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('refuses --stdout and --run-id for a batch, naming the option and what to use, and writes nothing', async () => {
    const before = readFileSync(page, 'utf8');
    const toStdout = await runDelta(['view', out, '--stdout']);
    expect(toStdout.exitCode).toBe(2);
    expect(toStdout.stdout).toBe('');
    expect(toStdout.stderr).toContain(`${out} is a batch: its page links to a page per run, so it is written to files, not to stdout.`);
    expect(toStdout.stderr).toContain('delta view -w <run workspace> --stdout');
    const withRunId = await runDelta(['view', out, '--run-id', 'run-1']);
    expect(withRunId.exitCode).toBe(2);
    expect(withRunId.stderr).toContain('--run-id names a run of a workspace');
    expect(readFileSync(page, 'utf8')).toBe(before);
  });

  it.skipIf(!chromium && chromiumUnavailable)('shows every run in headless Chromium, filters and sorts them, as the address asks', () => {
    const all = dumpDom(`file://${page}`);
    expect(all).toMatch(/<body[^>]*data-rendered-runs="6"/);
    expect(all).toMatch(/<body[^>]*data-visible-runs="6"/);
    expect(all).toContain('6 of 6 runs shown');
    expect(all).toContain('fake/model:1');
    expect(all).toContain('pass rate 33% [10-70]');

    // Filtered to task-2, sorted by repeat, descending: its two runs, the second repeat first.
    const filtered = dumpDom(`file://${page}#q=task-2&sort=-repeat`);
    expect(filtered).toMatch(/<body[^>]*data-visible-runs="2"/);
    expect(filtered).toMatch(/<body[^>]*data-order="run-3 run-2"/);
    expect(filtered).toContain('2 of 6 runs shown');
    expect(filtered).toMatch(/<th data-key="repeat" class="number" aria-sort="descending">/);

    // By score, highest first: the two passing runs of task-1 lead. A status and a text together; a text nothing matches.
    const byScore = dumpDom(`file://${page}#sort=-score`);
    expect(byScore).toMatch(/<body[^>]*data-order="run-0 run-1 /);
    const byStatus = dumpDom(`file://${page}#status=COMPLETED&q=task-3`);
    expect(byStatus).toMatch(/<body[^>]*data-visible-runs="2"/);
    expect(dumpDom(`file://${page}#q=no-such-task`)).toMatch(/<body[^>]*data-visible-runs="0"/);
  });
});
