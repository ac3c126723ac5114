import type { EstimatedCost, TokenUsage } from '@delta/journal';

/** 12345 -> "12,345". */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** 1 -> "1 iteration", 3 -> "3 iterations": a count with its noun, singular for one. */
export function countOf(value: number, noun: string): string {
  return `${formatCount(value)} ${value === 1 ? noun : `${noun}s`}`;
}

/** A duration for a person: "850ms", "4.2s", "3m 05s", "1h 02m". */
export function formatDuration(milliseconds: number): string {
  if (!Number.isFinite(milliseconds) || milliseconds < 0) return '-';
  if (milliseconds < 1000) return `${Math.round(milliseconds)}ms`;
  const seconds = milliseconds / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(Math.floor(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

/** An estimated cost: "0.0130 USD" below one unit, "12.40 USD" above. */
export function formatCost(cost: Pick<EstimatedCost, 'amount' | 'currency'>): string {
  return `${cost.amount.toFixed(cost.amount < 1 ? 4 : 2)} ${cost.currency}`;
}

/**
 * Tokens in and out with the details the server reported: "4,000 tokens in (2,000 cached), 300 out
 * (190 reasoning)". Cached tokens are part of the tokens in, reasoning tokens part of the tokens out.
 */
export function formatTokensInOut(usage: TokenUsage, inLabel = 'tokens in'): string {
  const cached = usage.cached_tokens === undefined ? '' : ` (${formatCount(usage.cached_tokens)} cached)`;
  const reasoning = usage.reasoning_tokens === undefined ? '' : ` (${formatCount(usage.reasoning_tokens)} reasoning)`;
  return `${formatCount(usage.prompt_tokens)} ${inLabel}${cached}, ${formatCount(usage.completion_tokens)} out${reasoning}`;
}
