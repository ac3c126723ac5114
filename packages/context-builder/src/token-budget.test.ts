import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { build, cleanup, expectStrictConversation, iterations, messagesOf, temp, user } from '../test/journal-events.js';
import { estimateTokens, loadContextManifest } from './index.js';
import { messagesTokens, messageTokens } from './token-count.js';

afterEach(cleanup);

describe('estimateTokens', () => {
  it('counts 4 ASCII characters a token and any other character a token', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
    expect(estimateTokens('日本語')).toBe(3);
    expect(estimateTokens('😀')).toBe(1);
    expect(messageTokens({ role: 'user', content: 'abcd' })).toBe(5);
    expect(
      messageTokens({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }],
      }),
    ).toBe(4 + 4 + 1 + 1 + 1);
  });
});

describe('max_tokens on file and computed_file sources', () => {
  it('cuts a block over its max_tokens, ending it with a marker that says where the whole text is', async () => {
    const { agent, run } = await build(
      "sources:\n  - type: file\n    id: guide\n    path: '${AGENT_HOME}/guide.md'\n    max_tokens: 100\n",
      {
        files: { 'guide.md': 'a'.repeat(1000) },
      },
    );
    const marker = `\n\n[... cut to fit the token budget: this block is about 260 tokens and its limit is 100 (max_tokens 100). The whole text is in ${join(agent, 'guide.md')}]`;
    // 4 per message, then (24 header + n + marker) / 4 <= 96.
    const messages = await run();
    expect(messages).toEqual([{ role: 'system', content: `# Context Block: guide\n\n${'a'.repeat(384 - 24 - marker.length)}${marker}` }]);
    expect(messageTokens(messages[0]!)).toBe(100);
  });

  it('leaves a block within its max_tokens untouched', async () => {
    const { run } = await build("sources:\n  - type: file\n    id: p\n    path: '${AGENT_HOME}/p.md'\n    max_tokens: 100\n", {
      files: { 'p.md': 'short' },
    });
    expect(await run()).toEqual([{ role: 'system', content: '# Context Block: p\n\nshort' }]);
  });

  it('cuts a computed_file block the same way', async () => {
    const { run } = await build(
      'sources:\n  - type: computed_file\n    id: s\n    generator:\n      command: [python3, -c, \'open("s.md","w").write("x"*4000)\']\n    output_path: \'${CWD}/s.md\'\n    max_tokens: 50\n',
    );
    const [block] = await run();
    expect(block!.content).toMatch(
      /^# Context Block: s\n\nx+\n\n\[\.\.\. cut to fit the token budget: this block is about \d+ tokens and its limit is 50 \(max_tokens 50\)\. The whole text is in .*s\.md\]$/,
    );
    expect(messageTokens(block!)).toBeLessThanOrEqual(50);
  });

  it('refuses a max_tokens too small for the header and the marker', async () => {
    const { run } = await build("sources:\n  - type: file\n    id: p\n    path: '${AGENT_HOME}/p.md'\n    max_tokens: 5\n", {
      files: { 'p.md': 'x'.repeat(100) },
    });
    await expect(run()).rejects.toMatchObject({
      kind: 'configuration',
      code: 'CONTEXT_BUDGET_EXCEEDED',
      field: 'sources[0].max_tokens',
      message: 'context source "p" (file): max_tokens 5, too few to hold even its header and the cut marker',
    });
  });
});

describe('total_max_tokens', () => {
  const prompt = 'You are careful. '.repeat(20); // 340 characters
  const yaml = (total: number, journal = '  - type: journal\n    id: history\n') =>
    `total_max_tokens: ${total}\nsources:\n  - type: file\n    id: system_prompt\n    path: '\${AGENT_HOME}/system_prompt.md'\n${journal}`;

  it('is a configuration error when the system prompt alone exceeds it', async () => {
    const { agent, loaded, run } = await build(yaml(50), { files: { 'system_prompt.md': prompt }, events: [user('task')] });
    await expect(run()).rejects.toMatchObject({
      kind: 'configuration',
      code: 'CONTEXT_BUDGET_EXCEEDED',
      file: loaded.file,
      field: 'total_max_tokens',
      message:
        'context source "system_prompt" (file) is about 97 tokens, but total_max_tokens 50 leaves 50 tokens for it and a source without max_tokens must be included whole',
      hint: `Raise total_max_tokens, shorten ${join(agent, 'system_prompt.md')}, or give sources[0] a max_tokens so that it may be cut.`,
    });
  });

  it('leaves everything as it is when the context fits', async () => {
    const events = iterations(3);
    const { run } = await build(yaml(10_000), { files: { 'system_prompt.md': prompt }, events });
    expect(await run()).toEqual([{ role: 'system', content: `# Context Block: system_prompt\n\n${prompt}` }, ...messagesOf(events)]);
  });

  it('gives the journal what the fixed sources leave, dropping the oldest whole iterations and keeping the task', async () => {
    const events = iterations(30, (i) => `observation ${i}: ${'x'.repeat(200)}`);
    const { work, run } = await build(yaml(1000), { files: { 'system_prompt.md': prompt }, events });
    const messages = await run();
    expect(messagesTokens(messages)).toBeLessThanOrEqual(1000);
    expectStrictConversation(messages.slice(1));
    expect(messages[0]).toEqual({ role: 'system', content: `# Context Block: system_prompt\n\n${prompt}` });
    const kept = messages.filter((message) => message.role === 'assistant').map((message) => message.content);
    const first = 31 - kept.length;
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, position) => `i${first + position}`));
    expect(messages[1]).toEqual({
      role: 'user',
      content: `task\n\n[Delta Engine: ${first - 1} earlier iterations (iterations 1-${first - 1}) are left out of this context to fit its token budget of ${1000 - 97}; the full history is in ${join(work, 'journal.jsonl')}]`,
    });
    expect(messages.slice(2)).toEqual(messagesOf(events, { maxIterations: kept.length }).slice(1));
    // As many iterations as fit: one more would not.
    const oneMore = messagesOf(events, { maxIterations: kept.length + 1 }).slice(1);
    expect(97 + messageTokens(messages[1]!) + messagesTokens(oneMore)).toBeGreaterThan(1000);
  });

  it('counts fixed sources first even when the journal comes before them, and keeps source order', async () => {
    const events = iterations(20, (i) => `r${i} ${'y'.repeat(100)}`);
    const agentYaml = `total_max_tokens: 600\nsources:\n  - type: journal\n  - type: file\n    id: late\n    path: '\${AGENT_HOME}/late.md'\n`;
    const { run } = await build(agentYaml, { files: { 'late.md': 'z'.repeat(800) }, events });
    const messages = await run();
    expect(messages.at(-1)).toEqual({ role: 'system', content: `# Context Block: late\n\n${'z'.repeat(800)}` });
    expect(messagesTokens(messages)).toBeLessThanOrEqual(600);
    expect(messages[0]!.content).toMatch(/^task\n\n\[Delta Engine: \d+ earlier iterations/);
    expectStrictConversation(messages.slice(0, -1));
  });

  it('cuts a fixed source with max_tokens to what remains of the total; the journal gets the rest', async () => {
    const files = { 'a.md': 'a'.repeat(400), 'b.md': 'b'.repeat(2000) };
    const fixed = `total_max_tokens: 260\nsources:\n  - type: file\n    id: a\n    path: '\${AGENT_HOME}/a.md'\n  - type: file\n    id: b\n    path: '\${AGENT_HOME}/b.md'\n    max_tokens: 500\n`;
    const first = await build(fixed, { files });
    expect(first.loaded.warnings.map((warning) => warning.field)).toEqual(['sources[1].max_tokens']);
    const [a, b] = await first.run();
    // a: 4 + (19 header + 400) / 4 = 109; b gets the 151 left.
    expect(messageTokens(a!)).toBe(109);
    expect(b!.content).toContain('this block is about 509 tokens and its limit is 151 (total_max_tokens 260 leaves 151 tokens for it).');
    expect(messageTokens(b!)).toBe(151);

    const journal = `${fixed.replace('max_tokens: 500', 'max_tokens: 100').replace('260', '300')}  - type: journal\n`;
    const second = await build(journal, { files, events: iterations(5) });
    const messages = await second.run();
    expect(messageTokens(messages[1]!)).toBe(100);
    expect(messagesTokens(messages.slice(2))).toBeLessThanOrEqual(91);
    expect(messages[2]!.content).toMatch(/^task\n\n\[Delta Engine: 3 earlier iterations \(iterations 1-3\)/);
    expect(messages.slice(3)).toEqual(messagesOf(iterations(5), { maxIterations: 2 }).slice(1));
  });

  it('the journal with nothing left is an error, since it cannot go without its task', async () => {
    const agentYaml = `total_max_tokens: 200\nsources:\n  - type: file\n    id: a\n    path: '\${AGENT_HOME}/a.md'\n    max_tokens: 300\n  - type: journal\n`;
    const { run } = await build(agentYaml, { files: { 'a.md': 'a'.repeat(2000) }, events: [user('go')] });
    await expect(run()).rejects.toMatchObject({
      code: 'CONTEXT_BUDGET_EXCEEDED',
      field: 'total_max_tokens',
      message:
        'context source "journal_1" (journal): total_max_tokens 200 leaves 0 tokens for it, which cannot hold even the initial task and the latest iteration (about 5 tokens after cutting every text it can)',
    });
  });

  it('takes reservedTokens (the tool definitions) from the total first', async () => {
    const { run } = await build(yaml(120), {
      files: { 'system_prompt.md': prompt },
      events: [user('task')],
      extra: { reservedTokens: 30 },
    });
    await expect(run()).rejects.toThrow('but total_max_tokens 120 leaves 90 tokens for it');
  });

  it('accepts another token counter', async () => {
    const words = (text: string) => text.split(/\s+/).filter(Boolean).length;
    const { run } = await build(yaml(100), {
      files: { 'system_prompt.md': 'one two three' },
      events: iterations(10),
      extra: { countTokens: words },
    });
    const messages = await run();
    expect(messagesTokens(messages, words)).toBeLessThanOrEqual(100);
    expect(messagesTokens(messages, words)).toBeGreaterThan(80);
    expect(messages[1]!.content).toMatch(/^task\n\n\[Delta Engine: \d+ earlier iterations/);
    expectStrictConversation(messages.slice(1));
  });
});

describe('max_tokens on the journal source', () => {
  it('cuts the latest iteration when even it alone does not fit, keeping the task and the pairing', async () => {
    const events = iterations(3, (i) => (i === 3 ? 'huge '.repeat(400) : `r${i}`));
    const { work, run } = await build('sources:\n  - type: journal\n    max_tokens: 120\n', { events });
    const messages = await run();
    expect(messagesTokens(messages)).toBeLessThanOrEqual(120);
    expectStrictConversation(messages);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[0]!.content).toBe(
      `task\n\n[Delta Engine: 2 earlier iterations (iterations 1-2) are left out of this context to fit its token budget of 120; the full history is in ${join(work, 'journal.jsonl')}]`,
    );
    expect(messages[2]!.content).toMatch(/^(huge )+huge\n\n\[\.\.\. cut to fit the token budget: the full text is in .*journal\.jsonl\]$/);
  });

  it('applies with no total_max_tokens, and max_iterations first', async () => {
    const events = iterations(10, (i) => `r${i}`.padEnd(40, '.'));
    const { run } = await build('sources:\n  - type: journal\n    max_iterations: 4\n    max_tokens: 100000\n', { events });
    expect(await run()).toEqual(messagesOf(events, { maxIterations: 4 }));
  });

  it('refuses a budget too small for the task and the latest iteration', async () => {
    const { run } = await build('sources:\n  - type: journal\n    max_tokens: 5\n', { events: iterations(2) });
    await expect(run()).rejects.toMatchObject({
      code: 'CONTEXT_BUDGET_EXCEEDED',
      field: 'sources[0].max_tokens',
      message: expect.stringMatching(
        /^context source "journal_0" \(journal\): max_tokens 5, which cannot hold even the initial task and the latest iteration/,
      ),
    });
  });
});

describe('context.yaml budget fields', () => {
  it('warns when the fixed sources can claim the whole total', () => {
    const agent = temp();
    writeFileSync(
      join(agent, 'context.yaml'),
      "total_max_tokens: 1000\nsources:\n  - type: file\n    path: '${AGENT_HOME}/a'\n    max_tokens: 600\n  - type: file\n    path: '${AGENT_HOME}/b'\n    max_tokens: 400\n  - type: journal\n",
    );
    writeFileSync(join(agent, 'a'), 'a');
    writeFileSync(join(agent, 'b'), 'b');
    expect(loadContextManifest(agent).warnings).toEqual([
      expect.objectContaining({
        field: 'total_max_tokens',
        line: 1,
        message: expect.stringContaining('add up to 1000, which can leave nothing of total_max_tokens 1000 for the journal'),
      }),
    ]);
  });

  it('must be whole positive numbers', () => {
    const agent = temp();
    writeFileSync(join(agent, 'context.yaml'), 'total_max_tokens: -1\nsources:\n  - type: journal\n    max_tokens: 1.5\n');
    expect(() => loadContextManifest(agent)).toThrow(
      /context\.yaml:1:19 total_max_tokens: Too small: expected number to be >0; found number -1\n.*context\.yaml:4:17 sources\[0\]\.max_tokens: expected int/,
    );
  });
});
