import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { readLatestRunId, runPaths } from '@delta/journal';
import { HOSTILE_OUTPUT, recordRun, threeIterations, type RecordedRun } from './inspect/recorded-run.test-support.js';
import { runDelta } from './test-support.js';
import { chromium, chromiumUnavailable, runChromium, warnIfChromiumSkipped } from './headless-chromium.test-support.js';
import { escapeHtml, readInvocationRequestBytes } from '@delta/views';

warnIfChromiumSkipped('the delta view browser test');

let run: RecordedRun;
let page: string;
let html: string;

beforeAll(async () => {
  run = await recordRun(threeIterations);
  const result = await runDelta(['view', '-w', run.workDir, '-o', join(run.workDir, 'run.html')]);
  expect(result.stderr).toBe('');
  expect(result.exitCode).toBe(0);
  page = result.stdout.trim();
  html = readFileSync(page, 'utf8');
}, 120_000);
afterAll(() => cleanupTempDirs());

describe('delta view', () => {
  it('writes one self-contained page: no external address, inline style and script', () => {
    expect(page).toBe(join(run.workDir, 'run.html'));
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).toContain('default-src &#39;none&#39;');
    expect(html.match(/<script\b/g)).toHaveLength(1);
  });

  it('escapes tool output: a <script> in it stays text', () => {
    expect(html).not.toContain(HOSTILE_OUTPUT);
    expect(html).toContain(
      '&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;1&#39;)&lt;/script&gt;&lt;img src=x onerror=&quot;',
    );
  });

  it('shows each model call as the conversation it sent, with the exact bytes one click away', () => {
    const paths = runPaths(run.workDir, readLatestRunId(run.workDir)!);
    const last = readdirSync(join(paths.runDir, 'io', 'invocations'))
      .sort()
      .at(-1)!;
    // What `delta show invocation 3 --request` prints (the record may be kept as a delta of the one before).
    const bytes = readInvocationRequestBytes(paths, last)!.toString('utf8');
    expect(html).toContain(
      `<summary>Raw request (the exact bytes sent) <span class="muted">(${Buffer.byteLength(bytes).toLocaleString('en-US')} bytes, io/invocations/${last}/request.json)</span></summary><pre>${escapeHtml(bytes)}</pre>`,
    );
    // The last call's conversation: the user's task, the assistant's calls with their ids, each result.
    const chat = html.slice(html.lastIndexOf('<div class="chat">'));
    expect(chat).toMatch(
      /^<div class="chat"><div class="muted">What the model was sent: model test-model · 7 messages · tools offered: write_file, print_html, fail, slow, ask_human<\/div>/,
    );
    expect(chat).toContain('<div class="msg role-user"><div class="msg-role">user</div><pre class="msg-text">Inspect me</pre></div>');
    expect(chat).toContain(
      '<div class="msg-call"><span class="tool-name">write_file</span><code>{&quot;path&quot;:&quot;a.txt&quot;,&quot;content&quot;:&quot;alpha\\n&quot;}</code> <span class="muted">call_write</span></div>',
    );
    expect(chat).toMatch(
      /<div class="msg role-tool"><div class="msg-role">tool result for call_fail<\/div><pre class="msg-text">[^<]*bad luck/,
    );
  });

  it('writes next to the run by default, and to stdout with --stdout', async () => {
    const byDefault = await runDelta(['view', '-w', run.workDir]);
    const runDir = runPaths(run.workDir, readLatestRunId(run.workDir)!).runDir;
    expect(byDefault.stdout.trim()).toBe(join(runDir, 'view.html'));
    expect(existsSync(join(runDir, 'view.html'))).toBe(true);
    const toStdout = await runDelta(['view', '-w', run.workDir, '--stdout']);
    expect(toStdout.stdout).toMatch(/^<!doctype html>/);
  });

  it.skipIf(!chromium && chromiumUnavailable)(
    'shows every iteration in headless Chromium, with its tool calls, and runs no injected script',
    () => {
      const dom = runChromium(['--virtual-time-budget=5000', '--dump-dom', `file://${page}`]);
      // Set by the page's own script: it ran, and counted the iterations.
      expect(dom).toMatch(/<body[^>]*data-rendered-iterations="3"/);
      expect(dom).toContain('3 iterations shown');
      expect(dom).not.toMatch(/<body[^>]*data-pwned/);
      for (const iteration of [1, 2, 3]) expect(dom).toContain(`id="iteration-${iteration}"`);
      for (const text of [
        'Writing a file and printing HTML.',
        'Now a failure.',
        'All done: a.txt says alpha.',
        'write_file',
        'print_html',
        'bad luck',
      ]) {
        expect(dom).toContain(text);
      }
      expect(dom).toContain('&lt;script&gt;document.body.setAttribute');
      expect(dom).toContain('6,170 (6,000 in, 170 out)');
      expect(dom).toContain('0.0167 USD');

      const screenshot = join(run.workDir, 'view.png');
      runChromium(['--window-size=1280,1600', '--hide-scrollbars', `--screenshot=${screenshot}`, `file://${page}`]);
      const png = readFileSync(screenshot);
      expect(png.subarray(1, 4).toString()).toBe('PNG');
      expect(png.length).toBeGreaterThan(10_000);
    },
  );
});
