import { ConfigurationError } from '@delta/errors';
import type { JournalEvent } from '@delta/journal';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import type { LoadedAgent } from './load-agent.js';

/** Why a limit stopped the run: the signal's reason, so that any step the abort reaches ends the same way. */
export class RunLimitReached extends Error {
  /**
   * `reason`: what the run is told; `limit`: the limit of the run itself this was (its wall time, its layer),
   * recorded in `limits_hit`, which ends the run for good in a batch. None for a limit of one engine
   * invocation (`--timeout`, `--max-cost`), after which the run can be continued.
   */
  constructor(
    readonly reason: string,
    readonly limit?: 'time' | 'layer',
  ) {
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

/** The wall time the run's engine invocations took so far: from each ENGINE_START to the ENGINE_END after it, summed. */
export function engineTime(events: Iterable<JournalEvent>): number {
  let total = 0;
  let started: number | undefined;
  for (const event of events) {
    if (event.type === 'ENGINE_START') started = Date.parse(event.timestamp);
    else if (event.type === 'ENGINE_END' && started !== undefined) {
      total += Date.parse(event.timestamp) - started;
      started = undefined;
    }
  }
  return total;
}

/** The run's own wall-time limit (a task's `timeout_sec`): the whole of it, and what its earlier engine invocations took of it. */
export interface RunTimeLimit {
  ms: number;
  spentMs: number;
}

/**
 * The run's signal with the wall-clock limits added: this engine invocation's (`timeoutMs`) and the run's
 * own (`timeLimit`, what is left of it). Once one passes, the signal aborts with a RunLimitReached, which
 * stops the running tool or model call as Ctrl-C does; `reach` aborts it so for another limit of the run
 * (its layer). `clear` stops the clocks.
 */
export function limitedSignal(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
  timeLimit?: RunTimeLimit,
): { signal: AbortSignal; clear: () => void; reach: (reached: RunLimitReached) => void } {
  const controller = new AbortController();
  const reach = (reached: RunLimitReached) => {
    if (!controller.signal.aborted) controller.abort(reached);
  };
  const timers: NodeJS.Timeout[] = [];
  const after = (ms: number, reached: () => RunLimitReached) => {
    const timer = setTimeout(() => reach(reached()), Math.max(0, ms));
    timer.unref();
    timers.push(timer);
  };
  if (timeoutMs !== undefined) {
    after(
      timeoutMs,
      () => new RunLimitReached(`reached the time limit (--timeout ${describeDuration(timeoutMs)}) before the task was complete`),
    );
  }
  if (timeLimit !== undefined) {
    after(
      timeLimit.ms - timeLimit.spentMs,
      () =>
        new RunLimitReached(
          `reached the run's time limit (${describeDuration(timeLimit.ms)} of wall time) before the task was complete`,
          'time',
        ),
    );
  }
  const stop = () => controller.abort(signal?.reason);
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  return {
    signal: controller.signal,
    reach,
    clear: () => {
      for (const timer of timers) clearTimeout(timer);
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
