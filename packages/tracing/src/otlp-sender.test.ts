import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '@delta/testkit';
import { OtlpSender, tracesUrl } from './otlp-sender.js';
import type { SpanRecord } from './run-spans.js';

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const root: SpanRecord = {
  traceId: '0123456789abcdef0123456789abcdef',
  spanId: '1111111111111111',
  name: 'invoke_agent writer',
  kind: 'internal',
  startMs: Date.UTC(2026, 10, 23, 12, 0, 0, 5),
  endMs: Date.UTC(2026, 10, 23, 12, 0, 9, 250),
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 300, 'delta.run.resumed': false },
  error: 'HTTP 400',
};
const child: SpanRecord = {
  traceId: root.traceId,
  spanId: '2222222222222222',
  parentSpanId: root.spanId,
  name: 'chat gpt-x',
  kind: 'client',
  startMs: Date.UTC(2026, 10, 23, 12, 0, 1),
  endMs: Date.UTC(2026, 10, 23, 12, 0, 3),
  attributes: { 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.request.model': 'gpt-x' },
};

describe('OtlpSender', () => {
  it('sends each record with its ids, parent, times, kind, attributes and status, over OTLP/HTTP JSON', async () => {
    receiver = await startOtlpReceiver();
    const sender = new OtlpSender({ endpoint: receiver.url, serviceName: 'delta-test' });
    expect(sender.url).toBe(`${receiver.url}/v1/traces`);
    sender.send([child, root]);
    expect(await sender.close()).toBe(2);
    const [chat, agent] = receiver.spans;
    expect(chat).toEqual({
      traceId: root.traceId,
      spanId: child.spanId,
      parentSpanId: root.spanId,
      name: 'chat gpt-x',
      kind: 3,
      startTimeUnixNano: `${child.startMs}000000`,
      endTimeUnixNano: `${child.endMs}000000`,
      attributes: { 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.request.model': 'gpt-x' },
      statusCode: 0,
      resource: expect.objectContaining({ 'service.name': 'delta-test' }),
    });
    expect(agent).toMatchObject({
      spanId: root.spanId,
      kind: 1,
      startTimeUnixNano: `${root.startMs}000000`,
      attributes: root.attributes,
      statusCode: 2,
      statusMessage: 'HTTP 400',
    });
    expect(agent!.parentSpanId).toBeUndefined();
  });

  it('says how many spans did not reach a collector that refuses them, naming the URL', async () => {
    const refusing = createServer((_request, response) => response.writeHead(400).end('{"error":"no"}'));
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/custom/path`;
    try {
      const sender = new OtlpSender({ endpoint: url });
      expect(sender.url).toBe(url);
      sender.send([root]);
      await expect(sender.close()).rejects.toMatchObject({
        code: 'TRACE_EXPORT_FAILED',
        message: expect.stringMatching(new RegExp(`^1 of 1 spans could not be sent to ${url.replace(/[/.]/g, '\\$&')}: `)),
      });
    } finally {
      refusing.closeAllConnections();
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('says nothing listens at an address that refuses the connection, when the export finds it before any probe', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const sender = new OtlpSender({ endpoint: `http://127.0.0.1:${port}`, timeoutMs: 2000 });
    sender.send([root]);
    await expect(sender.close()).rejects.toMatchObject({
      code: 'TRACE_EXPORT_FAILED',
      message: `1 of 1 spans could not be sent to http://127.0.0.1:${port}/v1/traces: nothing listens there (connect ECONNREFUSED 127.0.0.1:${port}).`,
    });
  });

  it('refuses an endpoint that is not an http(s) URL, naming the option', () => {
    expect(() => tracesUrl('localhost:4318')).toThrow('--endpoint "localhost:4318" is not an http(s) URL');
    expect(() => tracesUrl('not a url', 'OTEL_EXPORTER_OTLP_ENDPOINT')).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT "not a url" is not a URL.');
    expect(tracesUrl('https://collector.example:4318/')).toBe('https://collector.example:4318/v1/traces');
  });
});
