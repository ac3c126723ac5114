import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { readLatestRunId, runPaths } from '@delta/journal';
import { recordRun, type RecordedRun } from './inspect/recorded-run.test-support.js';
import { runDelta } from './test-support.js';
import { chromium, chromiumUnavailable, runChromium, warnIfChromiumSkipped } from './headless-chromium.test-support.js';

// The run page for calls that are not one plain execution: rejected by the engine, blocked by the
// pre_tool_execution gate, or with an observation post_tool_execution replaced; and hooks in the order they ran.

warnIfChromiumSkipped('the delta view hooks browser test');

let run: RecordedRun;
let dom: string;

/** The text of the iteration section `n` of the rendered DOM. */
function section(n: number): string {
  const start = dom.indexOf(`id="iteration-${n}"`);
  expect(start).toBeGreaterThan(-1);
  return dom.slice(start, dom.indexOf('</section>', start));
}

/** The tool-call card of `id` in the rendered DOM. */
function card(id: string): string {
  const at = dom.indexOf(`data-action="${id}"`);
  expect(at).toBeGreaterThan(-1);
  const start = dom.lastIndexOf('<div class="tool-call', at);
  const next = dom.indexOf('<div class="tool-call', at);
  const end = dom.indexOf('</section>', at);
  return dom.slice(start, next === -1 ? end : Math.min(next, end));
}

/** Text with the tags taken out, so a test can read it as the user does. */
function text(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

beforeAll(async () => {
  const agent = await createTempAgent({
    agentYaml: {
      name: 'hooked',
      llm: { model: 'test-model', max_retries: 0 },
      tools: [
        { name: 'say', description: 'Say something', exec: 'echo ${text}' },
        { name: 'secret', description: 'Print a secret', shell: 'echo password123' },
        { name: 'danger', description: 'Do something dangerous', shell: 'echo boom > boom' },
      ],
    },
    hooksYaml: {
      // The gate refuses `danger`; the post hook replaces what the model sees of `secret`.
      pre_tool_execution: {
        command: ['sh', '-c', 'if [ "$TOOL_NAME" = danger ]; then echo "danger is not allowed" >&2; exit 1; fi'],
      },
      post_tool_execution: {
        command: ['sh', '-c', 'if [ "$TOOL_NAME" = secret ]; then printf REDACTED > "$DELTA_HOOK_IO_PATH/output/observation.txt"; fi'],
      },
    },
  });
  run = await recordRun(
    [
      {
        content: 'Three calls, two of them wrong.',
        tool_calls: [
          { id: 'call_say', name: 'say', arguments: { text: 'hello' } },
          { id: 'call_unknown', name: 'nope', arguments: {} },
          { id: 'call_badargs', name: 'say', raw_arguments: '{"text": ' },
        ],
      },
      {
        content: 'A blocked call and a redacted one.',
        tool_calls: [
          { id: 'call_danger', name: 'danger', arguments: {} },
          { id: 'call_secret', name: 'secret', arguments: {} },
        ],
      },
      { content: 'Done.' },
    ],
    { agent },
  );
  expect(run.result.exitCode).toBe(0);
  const page = join(run.workDir, 'hooks.html');
  const viewed = await runDelta(['view', '-w', run.workDir, '-o', page]);
  expect(viewed.exitCode).toBe(0);
  if (chromium) dom = runChromium(['--virtual-time-budget=5000', '--dump-dom', `file://${page}`]);
  else dom = readFileSync(page, 'utf8');
}, 120_000);
afterAll(() => cleanupTempDirs());

describe.skipIf(!chromium && chromiumUnavailable)('delta view of calls that hooks or the engine stopped', () => {
  it('counts the calls the model requested in the iteration header, and says how many ran', () => {
    expect(text(section(1))).toMatch(/Iteration 1 model \S+ · 3 tool calls \(1 ran, 2 rejected\)/);
    expect(text(section(2))).toMatch(/Iteration 2 model \S+ · 2 tool calls \(1 ran, 1 blocked\)/);
  });

  it('labels a call the gate blocked BLOCKED, naming the hook, styled apart from a failure', () => {
    const blocked = card('call_danger');
    expect(blocked).toMatch(/^<div class="tool-call blocked" /);
    expect(blocked).toContain('<span class="badge BLOCKED">BLOCKED</span>');
    expect(blocked).not.toContain('>ERROR<');
    expect(text(blocked)).toMatch(/Blocked by the pre_tool_execution hook \(io\/hooks\/\d+_pre_tool_execution\/\): it did not run\./);
    expect(text(blocked)).toContain('danger is not allowed');
    for (const id of ['call_unknown', 'call_badargs']) {
      expect(card(id)).toMatch(/^<div class="tool-call rejected" /);
      expect(card(id)).toContain('<span class="badge REJECTED">REJECTED</span>');
    }
    expect(text(card('call_unknown'))).toContain('there is no tool named "nope"');
  });

  it('flags an observation post_tool_execution replaced, with the tool output one click away', () => {
    const secret = card('call_secret');
    const paths = runPaths(run.workDir, readLatestRunId(run.workDir)!);
    const result = readFileSync(paths.journal, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; action_id?: string; observation_overridden_by?: string })
      .find((event) => event.type === 'ACTION_RESULT' && event.action_id === 'call_secret');
    const post = result!.observation_overridden_by!;
    expect(post).toMatch(/^io\/hooks\/\d+_post_tool_execution\/$/);
    expect(text(secret)).toContain(
      `Observation replaced by the post_tool_execution hook (${post}): the model saw the hook's text, not the tool's.`,
    );
    expect(text(secret)).toMatch(/Observation \(what the model saw\) \(8 bytes, journal\.jsonl\) REDACTED/);
    // The tool's own output, as it wrote it.
    expect(text(secret)).toMatch(/stdout \(12 bytes, io\/tool_executions\/call_secret\/stdout\.log\) password123/);
    expect(card('call_say')).not.toContain('replaced');
  });

  it('draws each hook where it ran: the gate before the tool, the post hook after it', () => {
    const secret = text(card('call_secret'));
    const order = [
      secret.indexOf('pre_tool_execution SUCCESS'),
      secret.indexOf('Command line'),
      secret.indexOf('stdout ('),
      secret.indexOf('post_tool_execution SUCCESS'),
      secret.indexOf('Observation (what the model saw)'),
    ];
    expect(order.every((at) => at > -1)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // The blocked call shows its gate, and nothing after it.
    expect(text(card('call_danger'))).toContain('pre_tool_execution FAILED');
    expect(text(card('call_danger'))).not.toContain('post_tool_execution');
  });
});
