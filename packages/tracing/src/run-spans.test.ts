import type { JournalEvent } from '@delta/journal';
import { describe, expect, it } from 'vitest';
import { runSpans } from './run-spans.js';

// A run as its journal holds it: two model calls, two tool calls (one failing), a usage per call; then
// resumed by delta continue for one more call. Timestamps a second apart, so each span's times are known.
const at = (second: number) => new Date(Date.UTC(2026, 10, 23, 12, 0, second)).toISOString();
let seq = 0;
const event = (second: number, fields: Record<string, unknown>) =>
  ({ seq: ++seq, timestamp: at(second), ...fields }) as unknown as JournalEvent;
const journal: JournalEvent[] = [
  event(0, { type: 'ENGINE_START', run_id: 'r1', agent_home: '/a', work_dir: '/w', agent_name: 'writer', model: 'gpt-x' }),
  event(0, { type: 'USER_MESSAGE', content: 'Write a.txt' }),
  event(3, {
    type: 'THOUGHT',
    iteration: 1,
    content: 'Writing it.',
    tool_calls: [
      { id: 'call_1', name: 'write_file', arguments: '{"path":"a.txt"}' },
      { id: 'call_2', name: 'fail', arguments: '{}' },
    ],
    llm_invocation_ref: '0001_aa',
    finish_reason: 'tool_calls',
    duration_ms: 2500,
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, cached_tokens: 60, reasoning_tokens: 5 },
  }),
  event(4, { type: 'ACTION_REQUEST', iteration: 1, action_id: 'call_1', tool_name: 'write_file', tool_args: { path: 'a.txt' } }),
  event(5, {
    type: 'ACTION_RESULT',
    iteration: 1,
    action_id: 'call_1',
    tool_name: 'write_file',
    status: 'SUCCESS',
    observation_content: 'ok',
    exit_code: 0,
  }),
  event(5, { type: 'ACTION_REQUEST', iteration: 1, action_id: 'call_2', tool_name: 'fail', tool_args: {} }),
  event(7, {
    type: 'ACTION_RESULT',
    iteration: 1,
    action_id: 'call_2',
    tool_name: 'fail',
    status: 'FAILED',
    observation_content: 'bad',
    exit_code: 7,
  }),
  event(9, {
    type: 'THOUGHT',
    iteration: 2,
    content: 'Done.',
    tool_calls: [],
    llm_invocation_ref: '0002_bb',
    finish_reason: 'stop',
    usage: { prompt_tokens: 200, completion_tokens: 10, total_tokens: 210 },
  }),
  event(9, { type: 'ENGINE_END', run_id: 'r1', status: 'COMPLETED', final_iteration: 2 }),
  event(20, { type: 'ENGINE_START', run_id: 'r1', agent_home: '/a', work_dir: '/w', agent_name: 'writer', model: 'gpt-x', resumed: true }),
  event(20, { type: 'USER_MESSAGE', content: 'Again' }),
  event(21, { type: 'ERROR', error_message: 'HTTP 400 from the server', error_code: 'MODEL_ERROR' }),
  event(21, { type: 'ENGINE_END', run_id: 'r1', status: 'FAILED', final_iteration: 2, reason: 'model error' }),
];

describe('runSpans', () => {
  const spans = runSpans(journal, { callDuration: (ref) => (ref === '0002_bb' ? 1000 : undefined) });
  const byName = (name: string) => spans.filter((span) => span.name === name);

  it('makes an invoke_agent span per engine invocation, a chat span per model call, an execute_tool span per tool call', () => {
    expect(spans.map((span) => span.name)).toEqual([
      'chat gpt-x',
      'execute_tool write_file',
      'execute_tool fail',
      'chat gpt-x',
      'invoke_agent writer',
      'invoke_agent writer',
    ]);
    const [first, second] = byName('invoke_agent writer');
    for (const span of spans) expect(span.traceId).toBe(first!.traceId);
    for (const span of spans.slice(0, 4)) expect(span.parentSpanId).toBe(first!.spanId);
    expect(first!.parentSpanId).toBeUndefined();
    expect(second!.spanId).not.toBe(first!.spanId);
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(spans.length);
  });

  it('takes every time from the journal: a call ends at its THOUGHT and lasts its duration_ms (or the recorded one)', () => {
    const [call1, call2] = byName('chat gpt-x');
    expect([call1!.startMs, call1!.endMs]).toEqual([Date.parse(at(3)) - 2500, Date.parse(at(3))]);
    expect([call2!.startMs, call2!.endMs]).toEqual([Date.parse(at(9)) - 1000, Date.parse(at(9))]);
    const [write] = byName('execute_tool write_file');
    expect([write!.startMs, write!.endMs]).toEqual([Date.parse(at(4)), Date.parse(at(5))]);
    const [first, second] = byName('invoke_agent writer');
    expect([first!.startMs, first!.endMs, second!.startMs, second!.endMs]).toEqual([at(0), at(9), at(20), at(21)].map(Date.parse));
  });

  it('carries the GenAI attributes: usage as the journal has it, cached and reasoning included, summed on the invocation', () => {
    const [call1] = byName('chat gpt-x');
    expect(call1!.kind).toBe('client');
    expect(call1!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-x',
      'gen_ai.conversation.id': 'r1',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 100,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.usage.cache_read.input_tokens': 60,
      'gen_ai.usage.reasoning.output_tokens': 5,
      'delta.iteration': 1,
      'delta.invocation_ref': '0001_aa',
    });
    const [first, second] = byName('invoke_agent writer');
    expect(first!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'writer',
      'gen_ai.usage.input_tokens': 300,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 60,
      'gen_ai.usage.reasoning.output_tokens': 5,
      'delta.run.status': 'COMPLETED',
      'delta.run.resumed': false,
    });
    expect(first!.error).toBeUndefined();
    expect(second!.attributes).toMatchObject({ 'delta.run.status': 'FAILED', 'delta.run.resumed': true, 'error.type': 'MODEL_ERROR' });
    expect(second!.error).toBe('HTTP 400 from the server');
    const [fail] = byName('execute_tool fail');
    expect(fail!.attributes).toMatchObject({
      'gen_ai.tool.name': 'fail',
      'gen_ai.tool.call.id': 'call_2',
      'error.type': 'FAILED',
      'delta.tool.exit_code': 7,
    });
    expect(fail!.error).toBe('fail ended FAILED (exit 7)');
  });

  it('exports message content only when asked', () => {
    const keys = spans.flatMap((span) => Object.keys(span.attributes));
    expect(keys.filter((key) => /messages|arguments|result/.test(key))).toEqual([]);
    const withContent = runSpans(journal, { content: true });
    const write = withContent.find((span) => span.name === 'execute_tool write_file')!;
    expect(write.attributes['gen_ai.tool.call.arguments']).toBe('{"path":"a.txt"}');
    expect(write.attributes['gen_ai.tool.call.result']).toBe('ok');
    const call = withContent.find((span) => span.name === 'chat gpt-x')!;
    expect(JSON.parse(String(call.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Writing it.' },
          { type: 'tool_call', id: 'call_1', name: 'write_file', arguments: '{"path":"a.txt"}' },
          { type: 'tool_call', id: 'call_2', name: 'fail', arguments: '{}' },
        ],
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('gives the same ids every time, and ends an invocation whose engine died where its events end', () => {
    expect(runSpans(journal).map((span) => span.spanId)).toEqual(spans.map((span) => span.spanId));
    const crashed = runSpans(journal.slice(0, 5));
    const open = crashed.at(-1)!;
    expect(open.name).toBe('invoke_agent writer');
    expect(open.endMs).toBe(Date.parse(at(5)));
    expect(open.attributes['delta.run.ended']).toBe(false);
  });
});
