import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, trace } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type IdGenerator,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { ConfigurationError, SystemError } from '@delta/errors';
import type { SpanRecord } from './run-spans.js';

export interface OtlpTarget {
  /**
   * The collector's OTLP/HTTP address. A bare origin (`http://localhost:4318`), as OTEL_EXPORTER_OTLP_ENDPOINT
   * gives it, gets the traces path `/v1/traces`; a URL with a path is used as it is.
   */
  endpoint: string;
  headers?: Record<string, string>;
  /** `service.name` of the resource; `delta` by default. */
  serviceName?: string;
}

/** The URL spans are POSTed to. */
export function tracesUrl(endpoint: string, source = '--endpoint'): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ConfigurationError(`${source} "${endpoint}" is not a URL.`, {
      code: 'INVALID_ARGUMENT',
      hint: "Give the collector's OTLP/HTTP address, e.g. http://localhost:4318 (traces go to /v1/traces).",
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError(`${source} "${endpoint}" is not an http(s) URL: traces are sent over OTLP/HTTP.`, {
      code: 'INVALID_ARGUMENT',
      hint: 'For example http://localhost:4318.',
    });
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.toString();
}

/** An exporter's error in one line: OTLPExporterError carries the HTTP status as its code. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = (error as { code?: unknown }).code;
  if (typeof status === 'number') return `HTTP ${status} ${error.message}`;
  // The same words whether the background probe (see probeCollector) or the export itself found the address dead.
  return NOTHING_LISTENS.test(error.message) ? nothingListens(error.message) : error.message;
}

const NOTHING_LISTENS = /^connect (ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH) /;
const nothingListens = (reason: string) => `nothing listens there (${reason})`;

/** Hands the SDK the ids of the span being started: ids come from the journal (see run-spans.ts). */
class GivenIds implements IdGenerator {
  next: SpanRecord | undefined;
  generateTraceId(): string {
    return this.next!.traceId;
  }
  generateSpanId(): string {
    return this.next!.spanId;
  }
}

/** The OTLP exporter, counting what it sent and keeping why an export failed. */
class CountingExporter implements SpanExporter {
  sent = 0;
  readonly failures: string[] = [];
  constructor(private readonly inner: OTLPTraceExporter) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code === ExportResultCode.SUCCESS) this.sent += spans.length;
      else this.failures.push(result.error ? describe(result.error) : 'the export failed');
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }
}

/**
 * Sends span records over OTLP/HTTP (JSON) through the OpenTelemetry SDK, in batches, with their journal
 * timestamps and ids. `close` waits until everything is sent and says what was not.
 */
export class OtlpSender {
  readonly url: string;
  private readonly ids = new GivenIds();
  private readonly exporter: CountingExporter;
  private readonly provider: BasicTracerProvider;
  private readonly tracer;
  private given = 0;
  /** Why nothing will take the spans (nothing listens at the address), once that is known: spans are no longer handed on. */
  private unreachable: string | undefined;

  constructor(target: OtlpTarget & { timeoutMs?: number }, source?: string) {
    this.url = tracesUrl(target.endpoint, source);
    this.exporter = new CountingExporter(
      new OTLPTraceExporter({
        url: this.url,
        ...(target.headers ? { headers: target.headers } : {}),
        // OTEL_EXPORTER_OTLP_TIMEOUT, when set, is read by the exporter itself.
        ...(target.timeoutMs !== undefined
          ? { timeoutMillis: target.timeoutMs }
          : process.env.OTEL_EXPORTER_OTLP_TIMEOUT
            ? {}
            : { timeoutMillis: 10_000 }),
      }),
    );
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': target.serviceName ?? 'delta' }),
      idGenerator: this.ids,
      spanProcessors: [new BatchSpanProcessor(this.exporter)],
    });
    this.tracer = this.provider.getTracer('@delta/tracing');
  }

  /** Nothing will take the spans (see probeCollector): the ones not handed on yet never are, and close says why. */
  noteUnreachable(reason: string): void {
    this.unreachable ??= reason;
  }

  send(records: Iterable<SpanRecord>): void {
    for (const record of records) {
      if (this.unreachable !== undefined) {
        this.given += 1;
        continue;
      }
      this.ids.next = record;
      const parent = record.parentSpanId
        ? trace.setSpanContext(ROOT_CONTEXT, { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: TraceFlags.SAMPLED })
        : ROOT_CONTEXT;
      const span = this.tracer.startSpan(
        record.name,
        {
          kind: record.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
          startTime: new Date(record.startMs),
          attributes: record.attributes,
        },
        parent,
      );
      if (record.error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: record.error });
      span.end(new Date(record.endMs));
      this.given += 1;
    }
  }

  /**
   * Sends what is left, stops, and throws TRACE_EXPORT_FAILED if any span could not be sent. Returns how many were.
   * With `waitMs`, gives up after that long (a collector that is down is retried for up to 10 s otherwise).
   */
  async close(options: { waitMs?: number } = {}): Promise<number> {
    const { failures } = this.exporter;
    const finish = async () => {
      // A batch the collector refused rejects the flush; its reason is the one to report.
      try {
        await this.provider.forceFlush();
      } catch (error) {
        failures.push(describe(error));
      }
      try {
        await this.provider.shutdown();
      } catch (error) {
        failures.push(describe(error));
      }
    };
    if (this.unreachable !== undefined) failures.unshift(nothingListens(this.unreachable));
    if (options.waitMs === undefined) await finish();
    else {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<'gave up'>((resolve) => {
        timer = setTimeout(() => resolve('gave up'), options.waitMs).unref();
      });
      const outcome = await Promise.race([finish(), gaveUp]);
      clearTimeout(timer);
      if (outcome === 'gave up') {
        const seen = failures[0] === undefined ? '' : ` (${failures[0]})`;
        failures.unshift(`the collector did not take them within ${options.waitMs / 1000} s${seen}`);
      }
    }
    const { sent } = this.exporter;
    if (failures.length > 0 || sent < this.given) {
      throw new SystemError(
        `${this.given - sent} of ${this.given} spans could not be sent to ${this.url}: ${failures[0] ?? 'the collector did not take them'}.`,
        { code: 'TRACE_EXPORT_FAILED', hint: 'Check that an OTLP/HTTP collector listens there (port 4318 by default) and takes JSON.' },
      );
    }
    return sent;
  }
}
