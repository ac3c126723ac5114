import { describe, expect, it } from 'vitest';
import { StreamAssembler } from './stream-assembler.js';

function assemble(deltas: Array<Record<string, unknown>>, finish = 'tool_calls') {
  const assembler = new StreamAssembler();
  for (const delta of deltas) assembler.add({ id: 'c', choices: [{ index: 0, delta, finish_reason: null }] });
  assembler.add({ id: 'c', choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  return assembler.completion() as { choices: Array<{ message: { content: unknown; tool_calls?: unknown[] } }> };
}

const calls = (deltas: Array<Record<string, unknown>>) => assemble(deltas).choices[0]!.message.tool_calls;

describe('StreamAssembler', () => {
  it('assembles OpenAI-style deltas numbered by index', () => {
    expect(
      calls([
        { tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'ls', arguments: '' } }] },
        { tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'cat', arguments: '{"p' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '{}' } }] },
        { tool_calls: [{ index: 1, function: { arguments: '":1}' } }] },
      ]),
    ).toEqual([
      { id: 'a', type: 'function', function: { name: 'ls', arguments: '{}' } },
      { id: 'b', type: 'function', function: { name: 'cat', arguments: '{"p":1}' } },
    ]);
  });

  it('assembles calls without index: whole calls, split arguments, and a metadata-only delta (Gemini)', () => {
    const extra = { extra_content: { google: { thought_signature: 'sig' } } };
    expect(
      calls([
        { tool_calls: [{ id: '', type: 'function', function: { name: 'ls', arguments: '{"dir":' } }] },
        { tool_calls: [{ function: { arguments: '"."}' } }] },
        { tool_calls: [{ ...extra }] },
        { tool_calls: [{ index: null, id: '', type: 'function', function: { name: 'cat', arguments: '{}' } }] },
      ]),
    ).toEqual([
      { id: '', type: 'function', function: { name: 'ls', arguments: '{"dir":"."}' }, ...extra },
      { id: '', type: 'function', function: { name: 'cat', arguments: '{}' } },
    ]);
  });

  it('tells calls apart by id when there is no index, even when a server repeats an id', () => {
    expect(
      calls([
        { tool_calls: [{ id: 'x', function: { name: 'ls', arguments: '{}' } }] },
        { tool_calls: [{ id: 'y', function: { name: 'ls', arguments: '{}' } }] },
        { tool_calls: [{ id: 'y', function: { name: 'cat', arguments: '{}' } }] },
      ])?.map((call) => (call as { id: string }).id),
    ).toEqual(['x', 'y', 'y']);
  });

  it('keeps object arguments and content given as parts', () => {
    const completion = assemble([
      { content: [{ type: 'text', text: 'hi ' }] },
      { content: 'there' },
      { tool_calls: [{ index: 0, id: 'a', function: { name: 'ls', arguments: { dir: '.' } } }] },
    ]);
    expect(completion.choices[0]!.message.content).toBe('hi there');
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'ls', arguments: { dir: '.' } } },
    ]);
  });

  it('keeps the last usage and reports no choice when only usage came', () => {
    const assembler = new StreamAssembler();
    assembler.add({ id: 'c', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
    expect(assembler.completion()).toEqual({
      id: 'c',
      object: 'chat.completion',
      choices: [],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  });
});
