import { locateRun, type RunLocation } from './inspect/locate-run.js';
import { usageError } from './usage-error.js';
import { loadOptional, OPENTELEMETRY } from './optional-packages.js';

export interface ExportFlags extends RunLocation {
  endpoint?: string;
  header?: string | string[];
  content?: boolean;
  serviceName?: string;
}

/** `--header KEY=VALUE`, repeatable: headers for the collector (an API key, say). */
export function parseHeaders(value: string | string[] | undefined): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const entry of Array.isArray(value) ? value : [value]) {
    const at = String(entry).indexOf('=');
    if (at <= 0) throw usageError(`--header must be KEY=VALUE, got "${entry}".`, 'For example: --header "x-api-key=abc123"');
    headers[String(entry).slice(0, at).trim()] = String(entry).slice(at + 1);
  }
  return headers;
}

/** `delta export otel`: a recorded run's spans to an OTLP/HTTP collector (docs/tracing.md). */
export async function exportCommand(format: string, flags: ExportFlags): Promise<number> {
  if (format !== 'otel') {
    throw usageError(`delta export knows one format, otel, got "${format}".`, 'delta export otel -w DIR --endpoint http://localhost:4318');
  }
  const fromEnvironment = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const endpoint = flags.endpoint ?? (fromEnvironment === '' ? undefined : fromEnvironment);
  if (endpoint === undefined) {
    throw usageError(
      'delta export otel needs the collector: --endpoint is missing (and OTEL_EXPORTER_OTLP_ENDPOINT is not set).',
      'For example: delta export otel -w my-agent/workspaces/W001 --endpoint http://localhost:4318',
    );
  }
  const paths = locateRun(flags);
  const headers = parseHeaders(flags.header);
  const { exportRun } = await loadOptional('delta export otel', OPENTELEMETRY, () => import('@delta/tracing'));
  const { url, sent } = await exportRun(paths, {
    endpoint: String(endpoint),
    ...(headers ? { headers } : {}),
    ...(flags.serviceName === undefined ? {} : { serviceName: String(flags.serviceName) }),
    content: flags.content === true,
  });
  process.stderr.write(`Sent ${sent} spans of run ${paths.runId} to ${url}${flags.content ? ' (with message content)' : ''}.\n`);
  return 0;
}
