import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, startFakeLlm, modelEnv } from '@delta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, chromiumUnavailable, runChromium, warnIfChromiumSkipped } from './headless-chromium.test-support.js';
import { runDelta } from './test-support.js';

// The batch page's figures: the model x task heatmap, score bars with intervals, cost against score, failed runs.

warnIfChromiumSkipped('the delta view (batch figures) browser test');

const dumpDom = (url: string) => runChromium(['--virtual-time-budget=5000', '--dump-dom', url]);

interface Box {
  left: number;
  right: number;
  width: number;
}

/**
 * Where the page's parts are drawn in a window `width` pixels wide: a copy of the page with a measuring
 * script of the test's own (run under the page's nonce), its answer read back from the DOM Chromium dumps.
 */
function layoutAt(width: number): Record<string, Box | null> & { viewport: number } {
  const nonce = /<script nonce="([^"]+)">/.exec(html)![1]!;
  const measure = `<script nonce="${nonce}">(function () {
    function box(selector, content) {
      var element = document.querySelector(selector);
      if (!element) return null;
      var rect = element.getBoundingClientRect(), style = getComputedStyle(element);
      var inset = content ? [parseFloat(style.paddingLeft), parseFloat(style.paddingRight)] : [0, 0];
      return { left: rect.left + inset[0], right: rect.right - inset[1], width: rect.width - inset[0] - inset[1] };
    }
    document.body.setAttribute('data-layout', JSON.stringify({
      viewport: document.documentElement.clientWidth,
      header: box('header', false), column: box('header', true), matrix: box('#matrix'), bars: box('#score-bars'),
      charts: box('.charts', true), scatter: box('#cost-score'), failed: box('#failed', true), table: box('#runs'),
    }));
  })();</script>`;
  const copy = join(dirname(page), `layout-${width}.html`);
  writeFileSync(copy, html.replace('</body>', `${measure}\n</body>`));
  const dom = runChromium([`--window-size=${width},1000`, '--virtual-time-budget=5000', '--dump-dom', `file://${copy}`]);
  const attribute = /data-layout="([^"]*)"/.exec(dom)![1]!;
  return JSON.parse(attribute.replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
}

let llm: FakeLlm;
let page: string;
let html: string;

beforeAll(async () => {
  // m-b cannot do task 3: its run FAILS with the server's reason.
  llm = await startFakeLlm({
    script: (request) => {
      const body = request.body as { model: string; messages: { role: string; content: string }[] };
      if (body.model === 'm-b' && body.messages.some((message) => message.content === 'do 3')) {
        return { error: { status: 400, message: 'm-b <b>refuses</b> task 3' } };
      }
      return { content: 'done', usage: { prompt_tokens: 1000, completion_tokens: 100 } };
    },
  });
  const agent = await createTempAgent({
    agentYaml: {
      name: 'viewer',
      llm: { model: 'm-a', max_retries: 0, pricing: { input_per_million: 3, output_per_million: 15, currency: 'USD' } },
    },
  });
  const directory = await createTempDir();
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(tasksFile, ['1', '2', '3'].map((n) => JSON.stringify({ id: `task-${n}`, message: `do ${n}` })).join('\n'));
  const out = join(directory, 'out');
  const env = modelEnv(llm);
  // m-a passes tasks 1 and 2, m-b task 1 alone.
  const grader = 'case "$DELTA_TASK_ID $DELTA_MODEL" in "task-1 "*|"task-2 m-a") exit 0;; *) exit 1;; esac';
  const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--model', 'm-a,m-b', '--grader', grader], { env });
  expect(batch.exitCode).toBe(1);
  const result = await runDelta(['view', out]);
  expect(result.stderr).toBe('');
  page = result.stdout.trim();
  html = readFileSync(page, 'utf8');
}, 120_000);
afterAll(async () => {
  await llm.close();
  await cleanupTempDirs();
});

describe('delta view OUT: the figures', () => {
  it('draws them from the page itself: no address outside it, the failure reason escaped', () => {
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b|<img\b|url\(/i);
    expect(html).not.toContain('<b>refuses</b>');
    expect(html).toContain('m-b &lt;b&gt;refuses&lt;/b&gt; task 3');
  });

  it.skipIf(!chromium && chromiumUnavailable)(
    'shows the heatmap (each cell linking to its runs), bars with intervals, cost against score, failed runs, tokens and cost',
    () => {
      const dom = dumpDom(`file://${page}`);
      const cells = [...dom.matchAll(/<td class="heat"[^>]*><a href="#task=([^&"]+)&amp;model=([^"]+)"[^>]*>([^<]+)<\/a>/g)].map(
        (match) => [match[1], match[2], match[3]],
      );
      expect(cells).toEqual([
        ['task-1', 'm-a', '1/1'],
        ['task-1', 'm-b', '1/1'],
        ['task-2', 'm-a', '1/1'],
        ['task-2', 'm-b', '0/1'],
        ['task-3', 'm-a', '0/1'],
        ['task-3', 'm-b', '0/1'],
      ]);
      // Bars: m-a 2 of 3, m-b 1 of 3 (its FAILED run counts as 0), each with its Wilson interval [21-94] and [6-79].
      expect(dom).toMatch(
        /<g class="bar" data-model="m-a" data-mean="0\.6666666666666666" data-low="0\.20[0-9]+" data-high="0\.93[0-9]+">/,
      );
      expect(dom).toMatch(/<g class="bar" data-model="m-b" data-mean="0\.3333333333333333"/);
      expect(dom).toContain('67% [21-94]');
      // Cost per run: m-a three runs of 1000 in and 100 out at 3 and 15 per million = 0.0045 each.
      expect(dom).toMatch(/<g class="point" data-model="m-a" data-cost-per-run="0\.0045" data-score="0\.6666666666666666">/);
      expect(dom).toMatch(/<g class="point" data-model="m-b" data-cost-per-run="0\.003" data-score="0\.3333333333333333">/);
      expect(dom).toMatch(
        /<h2>Failed runs \(1\)<\/h2><ul><li><a href="task-3\/m-b\/1\/\.delta\/run-1\/view\.html">task-3 \/ m-b \/ 1<\/a>: <span class="reason">[^<]*m-b &lt;b&gt;refuses&lt;\/b&gt; task 3/,
      );
      expect(dom).toContain('tokens 5,000 in (0 cached) · 500 out · cost 0.0225 USD');

      // A cell's link shows that cell's runs alone.
      expect(dumpDom(`file://${page}#task=task-2&model=m-b`)).toMatch(/<body[^>]*data-visible-runs="1"[^>]*data-order="run-3"/);
    },
  );

  it.skipIf(!chromium && chromiumUnavailable)(
    "keeps the heatmap and charts in the page's centred column, the cost chart as wide as its place, at 1400 and 1920 px",
    () => {
      for (const width of [1400, 1920]) {
        const layout = layoutAt(width);
        const { header, column, charts, scatter } = layout;
        // The column is centred: as much room on its left as on its right.
        expect(Math.abs(header!.left - (layout.viewport - header!.right)), `at ${width} px`).toBeLessThanOrEqual(1);
        for (const part of ['matrix', 'bars', 'scatter', 'failed', 'table'] as const) {
          const box = layout[part]!;
          expect(box, `${part} at ${width} px`).not.toBeNull();
          expect(box.left, `${part}'s left at ${width} px`).toBeGreaterThanOrEqual(column!.left - 0.5);
          expect(box.right, `${part}'s right at ${width} px`).toBeLessThanOrEqual(column!.right + 0.5);
        }
        // The cost chart takes the width of the charts' column, not a fixed 480 px.
        expect(scatter!.width, `at ${width} px`).toBeGreaterThanOrEqual(charts!.width - 1);
        expect(scatter!.width, `at ${width} px`).toBeGreaterThan(520);
      }
    },
  );
});
