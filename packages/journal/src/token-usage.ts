import type { TokenUsage } from './events.js';

/** A detail count of a sum: absent while neither side has it, so runs on servers that never report it stay as they were. */
function addDetail(total: number | undefined, added: number | undefined): number | undefined {
  return total === undefined && added === undefined ? undefined : (total ?? 0) + (added ?? 0);
}

/**
 * Adds one model call's tokens (a THOUGHT's `usage`) to a total, cached and reasoning tokens included: the
 * one sum used by the engine's metadata.json, the traces and the batch summaries.
 */
export function addTokenUsage(total: TokenUsage | undefined, usage: TokenUsage): TokenUsage {
  const cached = addDetail(total?.cached_tokens, usage.cached_tokens);
  const reasoning = addDetail(total?.reasoning_tokens, usage.reasoning_tokens);
  return {
    prompt_tokens: (total?.prompt_tokens ?? 0) + usage.prompt_tokens,
    completion_tokens: (total?.completion_tokens ?? 0) + usage.completion_tokens,
    total_tokens: (total?.total_tokens ?? 0) + usage.total_tokens,
    ...(cached !== undefined ? { cached_tokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
  };
}
