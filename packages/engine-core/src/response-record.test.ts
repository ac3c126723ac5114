import { DeltaError } from '@delta/errors';
import { describe, expect, it } from 'vitest';
import { restoreStoredTexts } from './response-record.js';

const marker = '<delta: 70000 bytes kept once, in journal.jsonl: THOUGHT with llm_invocation_ref 0001_aa, tool_calls[0].arguments>';
const record = () => ({
  choices: [{ message: { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'echo', arguments: marker } }] } }],
});

describe('restoreStoredTexts', () => {
  it('puts arguments the server sent as an object back as that object', () => {
    const restored = restoreStoredTexts(record(), {
      content: null,
      tool_calls: [{ arguments: '{"text":"hi"}', arguments_type: 'object' }],
    });
    expect(restored).toMatchObject({ choices: [{ message: { tool_calls: [{ function: { arguments: { text: 'hi' } } }] } }] });
  });

  it('names the arguments when a changed journal marks text that is not JSON as an object', () => {
    let thrown: unknown;
    try {
      restoreStoredTexts(record(), { content: null, tool_calls: [{ arguments: '{"text":', arguments_type: 'object' }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DeltaError);
    expect((thrown as DeltaError).code).toBe('JSON_INVALID');
    expect((thrown as Error).message).toMatch(
      /^the THOUGHT's tool_calls\[0\]\.arguments \(recorded as a JSON object\) is not valid JSON: /,
    );
  });
});
