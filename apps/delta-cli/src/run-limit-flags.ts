import { usageError } from './usage-error.js';

/** A flag that takes a whole number of at least 1 (`--concurrency 8`); undefined when it is not given. */
export function parseWholeNumber(flag: string, value: string | number | undefined, example: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 1) {
    throw usageError(`${flag} must be a whole number of at least 1, got "${value}".`, `For example: ${example}`);
  }
  return number;
}

/** `--retries N`: 0 to 10, as `llm.max_retries` allows. */
function parseRetries(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 0 || number > 10) {
    throw usageError(`--retries must be a whole number from 0 to 10, got "${value}".`, 'For example: --retries 5 (0: no retry)');
  }
  return number;
}

/** `--max-cost USD`: a positive amount, in the currency of agent.yaml's llm.pricing. */
function parseMaxCost(value: string | number | undefined): number | undefined {
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

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration flag (`--timeout`, `--unused-for`): `90s`, `5m`, `1h`, `7d`, `1500ms`, or a number of seconds; in milliseconds. */
export function parseDurationFlag(flag: string, value: string | number): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(String(value));
  const milliseconds = match ? Number(match[1]) * UNITS[match[2] ?? 's']! : Number.NaN;
  if (!Number.isFinite(milliseconds) || milliseconds <= 0) {
    throw usageError(
      `${flag} must be a duration such as 90s, 5m, 1h or 7d, got "${value}".`,
      `For example: ${flag} 10m (a number alone is seconds)`,
    );
  }
  return Math.round(milliseconds);
}

function parseTimeout(value: string | number | undefined): number | undefined {
  return value === undefined ? undefined : parseDurationFlag('--timeout', value);
}

export interface RunLimitFlags {
  maxIterations?: string | number;
  retries?: string | number;
  maxCost?: string | number;
  timeout?: string | number;
}

/** `--max-iterations`, `--retries`, `--max-cost` and `--timeout`, checked in that order, as the engine options of those given. */
export function runLimitOptions(flags: RunLimitFlags) {
  const maxIterations = parseWholeNumber('--max-iterations', flags.maxIterations, '--max-iterations 30');
  const maxRetries = parseRetries(flags.retries);
  const maxCost = parseMaxCost(flags.maxCost);
  const timeoutMs = parseTimeout(flags.timeout);
  return {
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
    ...(maxCost === undefined ? {} : { maxCost }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}
