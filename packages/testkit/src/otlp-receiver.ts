import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP collector received it, decoded from OTLP JSON into plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP's numbers: 1 internal, 3 client. */
  kind: number;
  /** Nanoseconds since the epoch, as sent (a decimal string). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage?: string;
  /** The resource's attributes (`service.name`, ...). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The collector's base address, as OTEL_EXPORTER_OTLP_ENDPOINT takes it: traces are POSTed to `${url}/v1/traces`. */
  url: string;
  /** Every span received, in order. */
  spans: ReceivedSpan[];
  /** Resolves once at least `count` spans have arrived. */
  waitForSpans(count: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}

function decodeValue(value: OtlpAnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(decodeValue);
  return undefined;
}

function decodeAttributes(list: Array<{ key: string; value?: OtlpAnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((entry) => [entry.key, decodeValue(entry.value)]));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/**
 * A real OTLP/HTTP trace collector on a loopback port, for tests: it takes JSON export requests on
 * POST /v1/traces (what @opentelemetry/exporter-trace-otlp-http sends) and decodes every span. Anything
 * else gets 404, a body that is not OTLP JSON 400.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const waiters: Array<{ count: number; resolve: (spans: ReceivedSpan[]) => void }> = [];
  const server = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    let body: {
      resourceSpans?: Array<{
        resource?: { attributes?: Array<{ key: string; value?: OtlpAnyValue }> };
        scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
      }>;
    };
    // Not safeParseJson: a body that is not JSON is answered with HTTP 400, not an error.
    try {
      body = JSON.parse(await readBody(request));
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"not JSON"}');
      return;
    }
    for (const resourceSpans of body.resourceSpans ?? []) {
      const resource = decodeAttributes(resourceSpans.resource?.attributes);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          const status = (span.status ?? {}) as { code?: number; message?: string };
          const parent = typeof span.parentSpanId === 'string' && span.parentSpanId !== '' ? span.parentSpanId : undefined;
          spans.push({
            traceId: String(span.traceId),
            spanId: String(span.spanId),
            ...(parent ? { parentSpanId: parent } : {}),
            name: String(span.name),
            kind: Number(span.kind),
            startTimeUnixNano: String(span.startTimeUnixNano),
            endTimeUnixNano: String(span.endTimeUnixNano),
            attributes: decodeAttributes(span.attributes as Array<{ key: string; value?: OtlpAnyValue }>),
            statusCode: status.code ?? 0,
            ...(status.message ? { statusMessage: status.message } : {}),
            resource,
          });
        }
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    for (const waiter of [...waiters]) {
      if (spans.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(spans);
      }
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    waitForSpans: (count) => (spans.length >= count ? Promise.resolve(spans) : new Promise((resolve) => waiters.push({ count, resolve }))),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
