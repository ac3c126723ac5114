import { describe, expect, it } from 'vitest';
import { conversationOf, foldEvents, type JournalEvent } from './index.js';
import { parseJournalText } from './read-journal.js';

// Fields added to events since the first journals (model_retry, the usage details, reasoning, a call's
// extra) are optional: a journal written before them reads and folds as it did, and a retry record
// changes nothing the fold derives.

const line = (event: Record<string, unknown>) => JSON.stringify({ timestamp: '2026-01-01T00:00:00.000Z', ...event });

/** A journal as engines wrote it before these fields existed. */
const before = [
  line({ seq: 1, type: 'ENGINE_START', run_id: 'r', agent_home: '/a', work_dir: '/w' }),
  line({ seq: 2, type: 'USER_MESSAGE', content: 'task' }),
  line({
    seq: 3,
    type: 'THOUGHT',
    iteration: 1,
    content: 'calling',
    llm_invocation_ref: '0001_aaaaaa',
    tool_calls: [{ id: 'c1', name: 'echo', arguments: '{}' }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  }),
  line({
    seq: 4,
    type: 'ACTION_RESULT',
    iteration: 1,
    action_id: 'c1',
    tool_name: 'echo',
    status: 'SUCCESS',
    observation_content: 'ok',
    exit_code: 0,
  }),
];

const retry = line({
  seq: 5,
  type: 'SYSTEM_MESSAGE',
  iteration: 2,
  level: 'WARN',
  content: 'model: HTTP 429 from http://x/v1/chat/completions, retry 1/2 in 1.0 s (as Retry-After asked)',
  model_retry: {
    llm_invocation_ref: '0002_bbbbbb',
    attempt: 1,
    attempts: 3,
    delay_ms: 1000,
    retry_after_ms: 1000,
    status: 429,
    reason: 'HTTP 429',
  },
});

const parse = (lines: string[]): JournalEvent[] => parseJournalText(`${lines.join('\n')}\n`, '/j.jsonl');

describe('event fields added over time', () => {
  it('reads a journal written before them, with no value invented for them', () => {
    const thought = parse(before).find((event) => event.type === 'THOUGHT')!;
    expect(thought).not.toHaveProperty('reasoning');
    expect(thought.type === 'THOUGHT' && thought.usage).toEqual({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 });
    expect(thought.type === 'THOUGHT' && thought.tool_calls[0]).toEqual({ id: 'c1', name: 'echo', arguments: '{}' });
  });

  it('keeps a retry record, and the fold derives from it nothing it would not derive without it', () => {
    const withRetry = foldEvents(parse([...before, retry]));
    const without = foldEvents(parse(before));
    expect(withRetry.events.at(-1)).toMatchObject({
      type: 'SYSTEM_MESSAGE',
      model_retry: { attempt: 1, attempts: 3, delay_ms: 1000, status: 429 },
    });
    expect(withRetry.iterations).toBe(without.iterations);
    expect(withRetry.pendingCalls).toEqual(without.pendingCalls);
    expect(withRetry.finalAnswer).toBe(without.finalAnswer);
    expect(conversationOf(withRetry).json).toEqual(conversationOf(without).json);
  });

  it('keeps the usage details, the reasoning and what a server attached to a call; the extra goes back with the call', () => {
    const thought = line({
      seq: 5,
      type: 'THOUGHT',
      iteration: 2,
      content: null,
      llm_invocation_ref: '0002_bbbbbb',
      tool_calls: [{ id: 'c2', name: 'echo', arguments: '{}', extra: { extra_content: { google: { thought_signature: 'sig' } } } }],
      usage: { prompt_tokens: 20, completion_tokens: 5, total_tokens: 25, cached_tokens: 8, reasoning_tokens: 3 },
      reasoning: 'think',
      reasoning_field: 'reasoning_content',
    });
    const state = foldEvents(parse([...before, thought]));
    expect(state.events.at(-1)).toMatchObject({
      usage: { cached_tokens: 8, reasoning_tokens: 3 },
      reasoning: 'think',
      reasoning_field: 'reasoning_content',
    });
    const assistant = conversationOf(state).messages.at(-2)!;
    expect(assistant).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'c2',
          type: 'function',
          function: { name: 'echo', arguments: '{}' },
          extra_content: { google: { thought_signature: 'sig' } },
        },
      ],
    });
    // The reasoning is not part of the conversation: llm.send_reasoning adds it when the engine builds a request.
    expect(assistant).not.toHaveProperty('reasoning_content');
  });
});
