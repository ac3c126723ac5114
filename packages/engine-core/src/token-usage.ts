import type { EstimatedCost, TokenUsage } from '@delta/journal';
import type { LlmPricing } from './agent-config.js';

/**
 * The cost of some tokens at the given prices per million: prompt tokens at the input price, those the
 * provider served from its cache at the cached-input price when one is given, completion tokens (reasoning
 * included, as providers bill them) at the output price.
 */
export function estimateCost(usage: TokenUsage, pricing: LlmPricing): EstimatedCost {
  const cachedPrice = pricing.cached_input_per_million;
  const cached = cachedPrice === undefined ? 0 : Math.min(usage.cached_tokens ?? 0, usage.prompt_tokens);
  const amount =
    ((usage.prompt_tokens - cached) * pricing.input_per_million +
      cached * (cachedPrice ?? 0) +
      usage.completion_tokens * pricing.output_per_million) /
    1_000_000;
  return {
    amount,
    currency: pricing.currency,
    input_per_million: pricing.input_per_million,
    ...(cachedPrice !== undefined ? { cached_input_per_million: cachedPrice } : {}),
    output_per_million: pricing.output_per_million,
  };
}
