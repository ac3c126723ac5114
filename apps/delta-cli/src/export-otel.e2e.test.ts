import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal, readLatestRunId, runPaths, type JournalEvent } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type OtlpReceiver,
  type ReceivedSpan,
  type ScriptStep,
  startFakeLlm,
  startOtlpReceiver,
  modelEnv,
} from '@delta/testkit';
import { runDelta } from './test-support.js';

// delta export otel and live export: the spans a real OTLP/HTTP collector receives match the journal.

const script: ScriptStep[] = [
  {
    content: 'Two tools first.',
    tool_calls: [
      { id: 'call_write', name: 'write_file', arguments: { path: 'a.txt', content: 'alpha' } },
      { id: 'call_count', name: 'count', arguments: { path: 'a.txt' } },
    ],
    usage: { prompt_tokens: 1000, completion_tokens: 80, cached_tokens: 600, reasoning_tokens: 30 },
  },
  { content: 'a.txt has 5 bytes.', usage: { prompt_tokens: 1400, completion_tokens: 12 } },
];

const agentYaml = {
  name: 'traced',
  llm: { model: 'trace-model', max_retries: 0 },
  tools: [
    { name: 'write_file', description: 'Write a file', exec: 'tee -- ${path}', stdin: 'content' },
    { name: 'count', description: 'Count bytes', exec: 'wc -c -- ${path}' },
  ],
};

const open: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
  await cleanupTempDirs();
});

async function server(): Promise<FakeLlm> {
  const llm = await startFakeLlm({ script });
  open.push(llm);
  return llm;
}
async function receiver(): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver();
  open.push(started);
  return started;
}

/** What must be equal between two exports of the same run: everything but the resource. */
function comparable(spans: ReceivedSpan[]) {
  return spans.map(({ resource: _resource, ...span }) => span).sort((a, b) => a.spanId.localeCompare(b.spanId));
}

/** A port nobody listens on: taken, then released. */
function unusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const nanos = (timestamp: string) => `${Date.parse(timestamp)}000000`;

describe('delta export otel', () => {
  it("sends one span per model call and per tool call under the run span, with the journal's usage and times", async () => {
    const llm = await server();
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('otel-'), 'w');
    const env = modelEnv(llm);
    expect((await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Write and count'], { env })).exitCode).toBe(0);
    const runId = readLatestRunId(work)!;
    const journal: JournalEvent[] = readJournal(runPaths(work, runId).journal);

    const collector = await receiver();
    const exported = await runDelta(['export', 'otel', '-w', work, '--endpoint', collector.url]);
    expect(exported.stderr).toBe(`Sent 5 spans of run ${runId} to ${collector.url}/v1/traces.\n`);
    expect(exported.exitCode).toBe(0);
    const spans = collector.spans;

    const root = spans.find((span) => span.name === 'invoke_agent traced')!;
    expect(root.parentSpanId).toBeUndefined();
    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'traced',
      'gen_ai.conversation.id': runId,
      'gen_ai.request.model': 'trace-model',
      'gen_ai.usage.input_tokens': 2400,
      'gen_ai.usage.output_tokens': 92,
      'delta.run.status': 'COMPLETED',
    });
    const start = journal.find((event) => event.type === 'ENGINE_START')!;
    const end = journal.find((event) => event.type === 'ENGINE_END')!;
    expect([root.startTimeUnixNano, root.endTimeUnixNano]).toEqual([nanos(start.timestamp), nanos(end.timestamp)]);
    for (const span of spans) expect(span.traceId).toBe(root.traceId);

    // One chat span per THOUGHT, its usage the journal's, ending when the THOUGHT was written.
    const thoughts = journal.filter((event) => event.type === 'THOUGHT');
    const chats = spans.filter((span) => span.name === 'chat trace-model');
    expect(chats).toHaveLength(thoughts.length);
    for (const [index, thought] of thoughts.entries()) {
      const chat = chats.find((span) => span.attributes['delta.invocation_ref'] === thought.llm_invocation_ref)!;
      expect(chat.parentSpanId).toBe(root.spanId);
      expect(chat.kind).toBe(3);
      expect(chat.endTimeUnixNano).toBe(nanos(thought.timestamp));
      expect(BigInt(chat.startTimeUnixNano) <= BigInt(chat.endTimeUnixNano)).toBe(true);
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBe(thought.usage!.prompt_tokens);
      expect(chat.attributes['gen_ai.usage.output_tokens']).toBe(thought.usage!.completion_tokens);
      expect(chat.attributes['gen_ai.usage.cache_read.input_tokens']).toBe(thought.usage!.cached_tokens);
      expect(chat.attributes['gen_ai.usage.reasoning.output_tokens']).toBe(thought.usage!.reasoning_tokens);
      expect(chat.attributes['delta.iteration']).toBe(index + 1);
    }
    expect(thoughts[0]!.usage).toMatchObject({ cached_tokens: 600, reasoning_tokens: 30 });

    // One execute_tool span per ACTION_RESULT, from its request to its result.
    const results = journal.filter((event) => event.type === 'ACTION_RESULT');
    const tools = spans.filter((span) => span.name.startsWith('execute_tool '));
    expect(tools.map((span) => span.name).sort()).toEqual(['execute_tool count', 'execute_tool write_file']);
    for (const result of results) {
      const tool = tools.find((span) => span.attributes['gen_ai.tool.call.id'] === result.action_id)!;
      const request = journal.find((event) => event.type === 'ACTION_REQUEST' && event.action_id === result.action_id)!;
      expect(tool.parentSpanId).toBe(root.spanId);
      expect([tool.startTimeUnixNano, tool.endTimeUnixNano]).toEqual([nanos(request.timestamp), nanos(result.timestamp)]);
      expect(tool.attributes).toMatchObject({ 'gen_ai.tool.name': result.tool_name, 'delta.tool.status': 'SUCCESS' });
    }
    // No message content unless asked for.
    expect(JSON.stringify(spans)).not.toContain('alpha');
    const withContent = await receiver();
    expect((await runDelta(['export', 'otel', '-w', work, '--endpoint', withContent.url, '--content'])).exitCode).toBe(0);
    const write = withContent.spans.find((span) => span.name === 'execute_tool write_file')!;
    expect(write.attributes['gen_ai.tool.call.arguments']).toBe('{"path":"a.txt","content":"alpha"}');
  });

  it('a live run with OTEL_EXPORTER_OTLP_ENDPOINT gives the same spans as exporting it afterwards', async () => {
    const llm = await server();
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('otel-live-'), 'w');
    const live = await receiver();
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Write and count'], {
      env: { DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: live.url },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).not.toContain('warning: tracing');
    // The engine waits for its spans to be sent before it exits.
    expect(live.spans).toHaveLength(5);
    const after = await receiver();
    expect((await runDelta(['export', 'otel', '-w', work, '--endpoint', after.url])).exitCode).toBe(0);
    expect(comparable(live.spans)).toEqual(comparable(after.spans));
  });

  it('says what failed when the collector is not there, and what is missing without an endpoint', async () => {
    const llm = await server();
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('otel-bad-'), 'w');
    const port = await unusedPort();
    // OTEL_EXPORTER_OTLP_TIMEOUT: the exporter's own setting, so that the test does not wait 10 s for each export.
    const env = {
      DELTA_API_KEY: 'k',
      DELTA_BASE_URL: llm.baseUrl,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
    };
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Write and count'], { env });
    // The run's outcome is the run's: the trace is lost, with a warning.
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain(`warning: tracing: 5 of 5 spans could not be sent to http://127.0.0.1:${port}/v1/traces: `);
    const exported = await runDelta(['export', 'otel', '-w', work, '--endpoint', `http://127.0.0.1:${port}`], {
      env: { OTEL_EXPORTER_OTLP_TIMEOUT: '1000' },
    });
    expect(exported.exitCode).toBe(1);
    expect(exported.stderr).toContain(`Error: 5 of 5 spans could not be sent to http://127.0.0.1:${port}/v1/traces: `);
    const missing = await runDelta(['export', 'otel', '-w', work]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('delta export otel needs the collector: --endpoint is missing');
    const format = await runDelta(['export', 'jaeger', '-w', work, '--endpoint', 'http://127.0.0.1:1']);
    expect(format.exitCode).toBe(2);
    expect(format.stderr).toContain('delta export knows one format, otel, got "jaeger".');
  });

  it('a dead collector costs a live run nothing but one warning: nothing is sent to it, and no wait for retries', async () => {
    const llm = await server();
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('otel-dead-'), 'w');
    const port = await unusedPort();
    // No OTEL_EXPORTER_OTLP_TIMEOUT: the defaults users get.
    const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Write and count'], { env });
    expect(run.exitCode).toBe(0);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('tracing'));
    expect(warnings).toEqual([
      `warning: tracing: 5 of 5 spans could not be sent to http://127.0.0.1:${port}/v1/traces: nothing listens there (connect ECONNREFUSED 127.0.0.1:${port}). The run is recorded; \`delta export otel\` sends it again.`,
    ]);
  });

  it('a collector that takes the connection and never answers holds the end of a run 2 s at most, then one warning', async () => {
    const llm = await server();
    const agent = await createTempAgent({ agentYaml });
    const work = join(await createTempDir('otel-mute-'), 'w');
    const accepted: Array<import('node:net').Socket> = [];
    const mute = createServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    open.push({
      close: () =>
        new Promise<void>((resolve) => {
          for (const socket of accepted) socket.destroy();
          mute.close(() => resolve());
        }),
    });
    const { port } = mute.address() as { port: number };
    const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Write and count'], { env });
    expect(run.exitCode).toBe(0);
    const warnings = run.stderr.split('\n').filter((line) => line.includes('tracing'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^warning: tracing: 5 of 5 spans could not be sent to http://127\\.0\\.0\\.1:${port}/v1/traces: the collector did not take them within 2 s`,
      ),
    );
  });
});
