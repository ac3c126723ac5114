import { ConfigurationError } from '@delta/errors';

/** A command line the engine's limits cannot take (exit code 2, as the CLI's other usage errors). */
function usage(message: string, hint: string): ConfigurationError {
  return new ConfigurationError(message, { code: 'USAGE', hint });
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration flag (`--timeout`, `--unused-for`): `90s`, `5m`, `1h`, `7d`, `1500ms`, or a number of seconds; in milliseconds. */
export function parseDurationFlag(flag: string, value: string | number): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(String(value));
  const milliseconds = match ? Number(match[1]) * UNITS[match[2] ?? 's']! : Number.NaN;
  if (!Number.isFinite(milliseconds) || milliseconds <= 0) {
    throw usage(
      `${flag} must be a duration such as 90s, 5m, 1h or 7d, got "${value}".`,
      `For example: ${flag} 10m (a number alone is seconds)`,
    );
  }
  return Math.round(milliseconds);
}

/** `--max-iterations N`: a whole number of at least 1. */
function parseMaxIterations(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 1) {
    throw usage(`--max-iterations must be a whole number of at least 1, got "${value}".`, 'For example: --max-iterations 30');
  }
  return number;
}

/** `--retries N`: 0 to 10, as `llm.max_retries` allows. */
function parseRetries(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 0 || number > 10) {
    throw usage(`--retries must be a whole number from 0 to 10, got "${value}".`, 'For example: --retries 5 (0: no retry)');
  }
  return number;
}

/** `--max-cost USD`: a positive amount, in the currency of agent.yaml's llm.pricing. */
function parseMaxCost(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const amount = Number(value);
  if (String(value).trim() === '' || !Number.isFinite(amount) || amount <= 0) {
    throw usage(`--max-cost must be a positive amount, got "${value}".`, 'For example: --max-cost 0.50 (in the currency of llm.pricing)');
  }
  return amount;
}

/** The run limits as a command line gives them, each a string or a number. */
export interface RunLimitFlags {
  maxIterations?: string | number;
  retries?: string | number;
  maxCost?: string | number;
  timeout?: string | number;
}

/**
 * `--max-iterations`, `--retries`, `--max-cost` and `--timeout`, checked in that order, as the `EngineOptions`
 * of those given (`maxIterations`, `maxRetries`, `maxCost`, `timeoutMs`); a bad value is a USAGE error.
 */
export function runLimitOptions(flags: RunLimitFlags) {
  const maxIterations = parseMaxIterations(flags.maxIterations);
  const maxRetries = parseRetries(flags.retries);
  const maxCost = parseMaxCost(flags.maxCost);
  const timeoutMs = flags.timeout === undefined ? undefined : parseDurationFlag('--timeout', flags.timeout);
  return {
    ...(maxIterations === undefined ? {} : { maxIterations }),
    ...(maxRetries === undefined ? {} : { maxRetries }),
    ...(maxCost === undefined ? {} : { maxCost }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}
