import { usageError } from './usage-error.js';

/** `--max-cost USD`: a positive amount, in the currency of agent.yaml's llm.pricing. */
export function parseMaxCost(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const amount = Number(value);
  if (String(value).trim() === '' || !Number.isFinite(amount) || amount <= 0) {
    throw usageError(
      `--max-cost must be a positive amount, got "${value}".`,
      'For example: --max-cost 0.50 (in the currency of llm.pricing)',
    );
  }
  return amount;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `--timeout DURATION`: `90s`, `5m`, `1h`, `1500ms`, or a number of seconds; in milliseconds. */
export function parseTimeout(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(String(value));
  const milliseconds = match ? Number(match[1]) * UNITS[match[2] ?? 's']! : Number.NaN;
  if (!Number.isFinite(milliseconds) || milliseconds <= 0) {
    throw usageError(
      `--timeout must be a duration such as 90s, 5m or 1h, got "${value}".`,
      'For example: --timeout 10m (a number alone is seconds)',
    );
  }
  return Math.round(milliseconds);
}

/** The engine options of `--max-cost` and `--timeout`, for run, continue and batch. */
export function runLimitOptions(flags: { maxCost?: string | number; timeout?: string | number }): { maxCost?: number; timeoutMs?: number } {
  const maxCost = parseMaxCost(flags.maxCost);
  const timeoutMs = parseTimeout(flags.timeout);
  return { ...(maxCost === undefined ? {} : { maxCost }), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}
