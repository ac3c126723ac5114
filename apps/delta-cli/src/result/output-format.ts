import type { OutputFormat } from '@delta/views';
import { usageError } from '../usage-error.js';

const FORMATS: readonly OutputFormat[] = ['text', 'json', 'raw'];

/** `--format`, refused with `--json`, which prints the event stream on stdout instead. */
export function parseOutputFormat(flags: { format?: unknown; json?: boolean }): OutputFormat {
  if (flags.format === undefined) return 'answer';
  const value = String(flags.format);
  if (!(FORMATS as readonly string[]).includes(value)) {
    throw usageError(
      `--format must be text, json or raw, got "${value}".`,
      '--format json prints one JSON object with the result, --format raw only the final answer, --format text a summary of the run with the answer (without --format: the answer alone).',
    );
  }
  if (flags.json === true && value !== 'text') {
    throw usageError(
      `--json and --format ${value} both choose what goes to stdout; give one of them.`,
      '--json streams every journal event as it happens; --format json prints one result object when the run stops.',
    );
  }
  return value as OutputFormat;
}
