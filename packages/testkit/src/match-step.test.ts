import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir, type FakeLlm, loadScript, startFakeLlm } from './index.js';
import { parseScript, ScriptFileError } from './parse-script.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await cleanupTempDirs();
});

async function post(body: unknown) {
  const response = await fetch(`${llm!.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

const ask = (model: string, text: string) => ({ model, messages: [{ role: 'user', content: text }] });
const afterTool = (model: string, task: string, output: string) => ({
  model,
  messages: [
    { role: 'user', content: task },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: output }] },
  ],
});
const said = (answer: { json: any }) => answer.json.choices[0].message.content;

describe('a script whose steps say when:', () => {
  it('answers each model from its own script, in its own order, whatever order the requests come in', async () => {
    const file = join(await createTempDir(), 'two-models.yaml');
    writeFileSync(
      file,
      [
        'models:',
        '  model-a:',
        '    - content: a first',
        '    - content: a second',
        '  model-b:',
        '    steps:',
        '      - content: b first',
        '      - content: b second',
      ].join('\n'),
    );
    llm = await startFakeLlm({ script: loadScript(file) });
    expect(said(await post(ask('model-b', 'hi')))).toBe('b first');
    expect(said(await post(ask('model-a', 'hi')))).toBe('a first');
    const [b, a] = await Promise.all([post(ask('model-b', 'hi')), post(ask('model-a', 'hi'))]);
    expect([said(a), said(b)]).toEqual(['a second', 'b second']);
  });

  it('picks by a substring of the last user or tool message (text parts too), the first unused match in script order', async () => {
    llm = await startFakeLlm({
      script: [
        { when: { last_message: 'rows: 3' }, content: 'three rows' },
        { when: { last_message: 'Count' }, tool_calls: [{ name: 'f', arguments: {} }] },
        { when: { last_message: 'Count' }, tool_calls: [{ name: 'f', arguments: {} }] },
        { when: { model: 'x', last_message: 'rows: 5' }, content: 'five rows' },
        { content: 'anything else' },
      ],
    });
    expect((await post(ask('x', 'Count the rows'))).json.choices[0].message.tool_calls).toHaveLength(1);
    expect(said(await post(afterTool('x', 'Count the rows', 'rows: 5')))).toBe('five rows');
    expect(said(await post(afterTool('x', 'Count the rows', 'rows: 3')))).toBe('three rows');
    expect((await post(ask('y', 'Count them'))).json.choices[0].message.tool_calls).toHaveLength(1);
    expect(said(await post(ask('y', 'Hello')))).toBe('anything else');
  });

  it('answers a request no step matches with a 500 naming its model and last message, and no retry', async () => {
    llm = await startFakeLlm({ script: [{ when: { model: 'model-a' }, content: 'for a' }] });
    const answer = await post(afterTool('model-b', 'Count the rows', 'rows:\n  12'));
    expect(answer.status).toBe(500);
    expect(answer.headers.get('x-should-retry')).toBe('false');
    expect(answer.json.error.message).toBe(
      'delta-fake-llm: no step of the script matches request 1 (model "model-b", its last tool message: "rows: 12"); 1 of 1 steps are unused',
    );
    expect(said(await post(ask('model-a', 'hi')))).toBe('for a');
  });

  it('keeps answering in order when no step says when:, as before', async () => {
    llm = await startFakeLlm({ script: [{ content: 'one' }, { content: 'two' }] });
    expect(said(await post(ask('b', 'x')))).toBe('one');
    expect(said(await post(ask('a', 'x')))).toBe('two');
    expect((await post(ask('a', 'x'))).json.error.message).toBe('delta-fake-llm: the script has no step for request 3 (it has 2 steps)');
  });

  it('refuses a per-model script that contradicts itself, naming the model, the step and the field', () => {
    const wrong = () => parseScript({ models: { a: [{ content: 'x' }, { when: { model: 'b' }, content: 'y' }] } }, 's.yaml');
    expect(wrong).toThrow(ScriptFileError);
    expect(wrong).toThrow(`s.yaml: models.a: step 1, field 'when.model': "b" in the script of model "a"`);
    expect(() => parseScript({ models: { a: [{ when: {}, content: 'x' }] } }, 's.yaml')).toThrow(
      "s.yaml: models.a: step 0, field 'when': when: needs model or last_message",
    );
    expect(() => parseScript({ models: { a: [] } }, 's.yaml')).toThrow('s.yaml: models.a: the script has no steps');
    expect(() => parseScript({ models: {}, steps: [] }, 's.yaml')).toThrow("unknown key 'steps' beside 'models'");
    expect(() => parseScript([{ when: { modle: 'a' }, content: 'x' }], 's.yaml')).toThrow("step 0, field 'when'");
  });
});
