import { ConfigurationError } from '@delta/errors';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import type { LoadedAgent } from './load-agent.js';

/** Why a limit stopped the run: the signal's reason, so that any step the abort reaches ends the same way. */
export class RunLimitReached extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'RunLimitReached';
  }
}

/** 90 -> "1m 30s", 1500 -> "1.5s": how a --timeout is said back. */
export function describeDuration(milliseconds: number): string {
  if (milliseconds < 60_000) return `${Number((milliseconds / 1000).toFixed(3))}s`;
  const minutes = Math.floor(milliseconds / 60_000);
  const seconds = Math.round((milliseconds % 60_000) / 1000);
  return seconds === 0 ? `${minutes}m` : `${minutes}m ${seconds}s`;
}

/**
 * The run's signal with the wall-clock limit of this engine invocation (`timeoutMs`) added: once it
 * passes, the signal aborts with a RunLimitReached, which stops the running tool or model call as
 * Ctrl-C does. `clear` stops the clock.
 */
export function limitedSignal(signal: AbortSignal | undefined, timeoutMs: number | undefined): { signal: AbortSignal; clear: () => void } {
  if (timeoutMs === undefined) return { signal: signal ?? new AbortController().signal, clear: () => {} };
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new RunLimitReached(`reached the time limit (--timeout ${describeDuration(timeoutMs)}) before the task was complete`),
      ),
    timeoutMs,
  );
  timer.unref();
  const stop = () => controller.abort(signal?.reason);
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
    },
  };
}

/** An outcome a limit caused reads as one: INTERRUPTED with the limit as its reason, exit code 3, resumable. */
export function limitOutcome(outcome: RunOutcome, signal: AbortSignal): RunOutcome {
  if (outcome.status !== 'INTERRUPTED' || !(signal.reason instanceof RunLimitReached)) return outcome;
  return { status: 'INTERRUPTED', exitCode: ExitCode.ITERATION_BUDGET, reason: signal.reason.reason };
}

/** The cost this engine invocation may spend, checked before each model call (it needs prices in agent.yaml). */
export function checkCostLimit(maxCost: number | undefined, agent: LoadedAgent): void {
  if (maxCost === undefined) return;
  if (!Number.isFinite(maxCost) || maxCost <= 0) {
    throw new ConfigurationError(`--max-cost must be a positive amount, got ${maxCost}.`, {
      code: 'USAGE',
      field: 'maxCost',
      hint: 'For example: --max-cost 0.50 (in the currency of llm.pricing).',
    });
  }
  if (agent.config.llm.pricing === undefined) {
    throw new ConfigurationError('--max-cost needs prices to know what a run costs, and agent.yaml has no llm.pricing.', {
      code: 'USAGE',
      field: 'llm.pricing',
      hint: 'Add llm.pricing (input_per_million and output_per_million) to agent.yaml; see docs/configuration.md.',
    });
  }
}
