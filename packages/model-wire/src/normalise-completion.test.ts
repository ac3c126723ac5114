import { DeltaError } from '@delta/errors';
import { describe, expect, it } from 'vitest';
import { INVALID_TOOL_CALL_NAME, normaliseCompletion } from './normalise-completion.js';

const endpoint = 'http://127.0.0.1:9/v1/chat/completions';

function completion(message: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    id: 'x',
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
    ...extra,
  };
}

function thrown(run: () => unknown): DeltaError & { transient: boolean } {
  try {
    run();
  } catch (error) {
    if (DeltaError.isInstance(error)) return error as DeltaError & { transient: boolean };
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('normaliseCompletion', () => {
  it('leaves an answer in the official shape as it is', () => {
    const turn = normaliseCompletion(
      completion(
        { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{"dir":"."}' } }] },
        {
          usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
        },
      ),
      { endpoint },
    );
    expect(turn).toEqual({
      content: null,
      tool_calls: [{ id: 'call_1', name: 'ls', arguments: '{"dir":"."}' }],
      finish_reason: 'stop',
      usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
      normalised: [],
    });
  });

  it('turns object arguments into JSON text and says it came as an object', () => {
    const turn = normaliseCompletion(
      completion({ tool_calls: [{ id: 'a', type: 'function', function: { name: 'ls', arguments: { dir: '.' } } }] }),
      {
        endpoint,
      },
    );
    expect(turn.tool_calls).toEqual([{ id: 'a', name: 'ls', arguments: '{"dir":"."}', arguments_type: 'object' }]);
    expect(turn.normalised).toEqual(['tool call 1 sent its arguments as a JSON object; they are sent back as JSON text']);
  });

  it('gives missing, empty and repeated ids unique ids and keeps what the server sent', () => {
    const call = (id: unknown) => ({ ...(id === undefined ? {} : { id }), type: 'function', function: { name: 'ls', arguments: '{}' } });
    const turn = normaliseCompletion(
      completion({ tool_calls: [call('same'), call('same'), call(''), call(undefined), call('call_delta_3')] }),
      {
        endpoint,
      },
    );
    expect(turn.tool_calls.map(({ id, server_id }) => ({ id, server_id }))).toEqual([
      { id: 'same', server_id: undefined },
      { id: 'call_delta_2', server_id: 'same' },
      { id: 'call_delta_3_2', server_id: '' },
      { id: 'call_delta_4', server_id: null },
      { id: 'call_delta_3', server_id: undefined },
    ]);
    expect(new Set(turn.tool_calls.map((entry) => entry.id)).size).toBe(5);
  });

  it('keeps a call without a usable function as a call the model is told about', () => {
    const turn = normaliseCompletion(
      completion({
        tool_calls: [
          { id: 'a', type: 'function' },
          { id: 'b', type: 'function', function: { name: null, arguments: '{}' } },
          { id: 'c', type: 'function', function: { name: 'ls', arguments: 42 } },
        ],
      }),
      { endpoint },
    );
    expect(turn.tool_calls.map((entry) => [entry.id, entry.name, entry.arguments])).toEqual([
      ['a', INVALID_TOOL_CALL_NAME, '{}'],
      ['b', INVALID_TOOL_CALL_NAME, '{}'],
      ['c', INVALID_TOOL_CALL_NAME, '{}'],
    ]);
    expect(turn.tool_calls[0]!.problem).toMatch(/^Your tool call number 1 could not be run: has no function \(the server sent \{"id":"a"/);
    expect(turn.tool_calls[1]!.problem).toMatch(/has no function name/);
    expect(turn.tool_calls[2]!.problem).toMatch(/its arguments are 42, not a JSON object/);
  });

  it('joins content given as parts', () => {
    const turn = normaliseCompletion(
      completion({ content: [{ type: 'text', text: 'Hello, ' }, { type: 'text', text: 'world' }, { type: 'image_url' }] }),
      {
        endpoint,
      },
    );
    expect(turn.content).toBe('Hello, world');
    expect(turn.normalised).toEqual(['content came as 3 part(s) and was joined into text; 1 part(s) without text were left out']);
  });

  it('keeps reasoning under the field the server used, and OpenRouter reasoning_details', () => {
    expect(normaliseCompletion(completion({ content: 'a', reasoning_content: 'because' }), { endpoint })).toMatchObject({
      reasoning: 'because',
      reasoning_field: 'reasoning_content',
    });
    const details = [{ type: 'reasoning.text', text: 'step 1' }];
    expect(normaliseCompletion(completion({ content: 'a', reasoning: 'step 1', reasoning_details: details }), { endpoint })).toMatchObject({
      reasoning: 'step 1',
      reasoning_field: 'reasoning',
      reasoning_details: details,
    });
  });

  it('reads cached and reasoning tokens, DeepSeek style too', () => {
    const usage = (value: unknown) => normaliseCompletion(completion({ content: 'a' }, { usage: value }), { endpoint }).usage;
    expect(
      usage({
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 80 },
        completion_tokens_details: { reasoning_tokens: 30 },
      }),
    ).toEqual({ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cached_tokens: 80, reasoning_tokens: 30 });
    expect(usage({ prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64 })).toEqual({
      prompt_tokens: 100,
      completion_tokens: 5,
      total_tokens: 105,
      cached_tokens: 64,
    });
    expect(usage('n/a')).toBeUndefined();
  });

  it('refuses an answer with no choice or no message as a transient model error', () => {
    for (const body of [{ choices: [] }, { choices: [{ index: 0, finish_reason: 'stop' }] }]) {
      const error = thrown(() => normaliseCompletion(body, { endpoint }));
      expect(error.code).toBe('MODEL_EMPTY_RESPONSE');
      expect(error.kind).toBe('model');
      expect(error.transient).toBe(true);
      expect(error.message).toContain(endpoint);
    }
  });

  it('refuses tool_calls that is not a list', () => {
    const error = thrown(() => normaliseCompletion(completion({ tool_calls: { id: 'a', function: { name: 'ls' } } }), { endpoint }));
    expect(error.code).toBe('MODEL_MALFORMED_RESPONSE');
    expect(error.message).toMatch(/"tool_calls" is an object, not a list/);
  });

  it('says that null, {} and an error object are not chat completions', () => {
    expect(thrown(() => normaliseCompletion(null, { endpoint, status: 200 })).message).toBe(
      `The model endpoint ${endpoint} answered HTTP 200 (application/json) with JSON that is not a chat completion (no "choices" list): null`,
    );
    expect(thrown(() => normaliseCompletion({}, { endpoint })).code).toBe('MODEL_BAD_RESPONSE');
    const error = thrown(() => normaliseCompletion({ error: { code: 502, message: 'provider down' } }, { endpoint }));
    expect(error.message).toContain('with an error: provider down');
    expect(error.transient).toBe(true);
    expect(thrown(() => normaliseCompletion({ error: { code: 400, message: 'bad' } }, { endpoint })).transient).toBe(false);
  });
});
