import { estimateCost } from '@delta/engine';
import type { Grade } from './grade-schema.js';
import type { ModelEntry } from './models-file.js';

/** What a model judge spent: its tokens, and their cost at its entry's prices (null when it has none). */
export interface JudgeUsage {
  /** Grades that recorded a usage. */
  runs: number;
  input_tokens: number;
  output_tokens: number;
  cost: number | null;
  currency: string | null;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** A grade's `details.usage` (a `model:` grader writes it), or undefined for a grader that called no model. */
export function judgeUsageOf(grade: Grade): JudgeUsage | undefined {
  const usage = grade.details?.usage;
  if (typeof usage !== 'object' || usage === null) return undefined;
  const fields = usage as Record<string, unknown>;
  const input = count(fields.input_tokens);
  const output = count(fields.output_tokens);
  if (input === undefined || output === undefined) return undefined;
  const cost = count(fields.cost);
  return {
    runs: 1,
    input_tokens: input,
    output_tokens: output,
    cost: cost ?? null,
    currency: cost === undefined ? null : typeof fields.currency === 'string' ? fields.currency : 'USD',
  };
}

/** Two usages added; the cost is known only while every part has one. Rounded past any price's digits. */
export function sumJudgeUsage(total: JudgeUsage | undefined, usage: JudgeUsage): JudgeUsage {
  if (total === undefined) return usage;
  const cost = total.cost === null || usage.cost === null ? null : Number((total.cost + usage.cost).toFixed(10));
  return {
    runs: total.runs + usage.runs,
    input_tokens: total.input_tokens + usage.input_tokens,
    output_tokens: total.output_tokens + usage.output_tokens,
    cost,
    currency: cost === null ? null : (total.currency ?? usage.currency),
  };
}

/** What a judge's answer cost at its entry's prices, as its grade's `details.usage` records it. */
export function judgeCostOf(
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number },
  pricing: NonNullable<ModelEntry['pricing']>,
): { cost: number; currency: string } {
  const { amount, currency } = estimateCost(usage, pricing);
  return { cost: amount, currency };
}
