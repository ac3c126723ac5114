import type { EstimatedCost, TokenUsage } from '@delta/journal';
import type { LlmPricing } from './agent-config.js';

/** Adds one model call's tokens to a run's total. */
export function addTokenUsage(total: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + usage.prompt_tokens,
    completion_tokens: (total?.completion_tokens ?? 0) + usage.completion_tokens,
    total_tokens: (total?.total_tokens ?? 0) + usage.total_tokens,
  };
}

/** The cost of some tokens at the given prices per million (input = prompt, output = completion). */
export function estimateCost(usage: TokenUsage, pricing: LlmPricing): EstimatedCost {
  const amount = (usage.prompt_tokens * pricing.input_per_million + usage.completion_tokens * pricing.output_per_million) / 1_000_000;
  return {
    amount,
    currency: pricing.currency,
    input_per_million: pricing.input_per_million,
    output_per_million: pricing.output_per_million,
  };
}
