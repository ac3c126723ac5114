import type { PendingCall, RunState } from '@delta/journal';
import { ExitCode, type RunOutcome } from './exit-codes.js';
import { RunLimitReached } from './run-limits.js';

/**
 * What the loop knows before each step, as plain values: the run's state (the fold of its journal), this
 * engine invocation's limits, and what the effect runner found out for it (an answer in hand, whether the
 * pinned agent changed).
 */
export interface LoopView {
  state: RunState;
  /** The model has answered and its answer is not journaled yet. */
  answerInHand: boolean;
  /** The run's signal has aborted: Ctrl-C, a stop, or `--timeout` (its reason a RunLimitReached). */
  aborted: boolean;
  abortReason: unknown;
  /** The last iteration this invocation may start, and the `--max-iterations` it comes from. */
  lastIteration: number;
  maxIterations: number;
  /** What this invocation has spent, its `--max-cost` if any, and the currency of both. */
  spent: number;
  maxCost: number | undefined;
  currency: string;
  /** Why the pinned agent's files no longer match (`pinAgentVersion`); looked at only if `mayCallModel`. */
  agentChanged: string | undefined;
}

/** Why a run stops, by name. */
export type StopName = 'final answer' | 'time' | 'interrupted' | 'cost' | 'iterations' | 'agent changed';

/** A named predicate: the outcome the run stops with, or undefined when it goes on. */
export interface StopCondition {
  name: StopName;
  test: (view: LoopView) => RunOutcome | undefined;
}

const limitReached = (reason: string): RunOutcome => ({ status: 'INTERRUPTED', exitCode: ExitCode.ITERATION_BUDGET, reason });

/**
 * The conditions that stop the loop between two steps, in the order they are checked. A run also stops
 * from inside a step: paused for a human (`act`), or failed (an error thrown).
 */
export const STOP_CONDITIONS: readonly StopCondition[] = [
  {
    // The model's last word was an answer without tool calls, and nothing came after it (a run killed
    // after its final answer but before ENGINE_END is complete too: the model is not asked again).
    name: 'final answer',
    test: ({ state }) =>
      state.finalAnswer === undefined ? undefined : { status: 'COMPLETED', exitCode: ExitCode.COMPLETED, finalAnswer: state.finalAnswer },
  },
  {
    name: 'time',
    test: ({ aborted, abortReason }) => (aborted && abortReason instanceof RunLimitReached ? limitReached(abortReason.reason) : undefined),
  },
  {
    name: 'interrupted',
    test: ({ aborted }) =>
      aborted ? { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason: 'interrupted by a signal' } : undefined,
  },
  {
    // --max-cost counts what this invocation spends, as --max-iterations counts its model calls.
    name: 'cost',
    test: ({ spent, maxCost, currency }) =>
      maxCost === undefined || spent < maxCost
        ? undefined
        : limitReached(
            `reached the cost limit (--max-cost ${maxCost} ${currency}): ${spent.toFixed(4)} ${currency} spent by this invocation before the task was complete`,
          ),
  },
  {
    name: 'iterations',
    test: ({ state, lastIteration, maxIterations }) =>
      state.iterations + 1 <= lastIteration
        ? undefined
        : limitReached(`reached the iteration budget (--max-iterations ${maxIterations}) before the task was complete`),
  },
  {
    name: 'agent changed',
    test: ({ agentChanged: reason }) =>
      reason === undefined ? undefined : { status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED, reason },
  },
];

/**
 * What the loop does next: journal the model's answer, stop and why, answer the calls left without a
 * result, or call the model.
 */
export type Step =
  | { kind: 'record-answer' }
  | { kind: 'stop'; because: StopName; outcome: RunOutcome }
  | { kind: 'act'; calls: readonly PendingCall[] }
  | { kind: 'think'; iteration: number };

/**
 * The decision of one turn of the loop, from what it knows alone: an answer in hand is journaled first;
 * then the calls of the last THOUGHT that have no result yet (a resumed pause or crash leaves some too)
 * are answered, even when the run is stopping (a call not started then gets "not run", so the model
 * decides again, and a resumed run never runs a call its user stopped); then the first stop condition
 * that holds; else the next model call. So a run stops only between iterations.
 */
export function nextStep(view: LoopView, conditions: readonly StopCondition[] = STOP_CONDITIONS): Step {
  if (view.answerInHand) return { kind: 'record-answer' };
  const pending = view.state.pendingCalls;
  if (pending.length > 0) return { kind: 'act', calls: pending };
  for (const condition of conditions) {
    const outcome = condition.test(view);
    if (outcome) return { kind: 'stop', because: condition.name, outcome };
  }
  return { kind: 'think', iteration: view.state.iterations + 1 };
}

/** Whether the next step may be a model call: nothing is in hand and every call has its result. */
export function mayCallModel(state: RunState, answerInHand: boolean): boolean {
  return !answerInHand && state.pendingCalls.length === 0;
}

/** How one call is answered: served from a recording, asked of the human, reported lost, or run. */
export type CallRoute = 'recorded' | 'ask-human' | 'lost' | 'mcp' | 'command';

/** What `routeCall` needs to know of a call besides the call itself. */
export interface CallFacts {
  /** A replay with recorded tools has its result. */
  recorded: boolean;
  /** It is ask_human, and the agent offers ask_human. */
  asksHuman: boolean;
  /** An MCP server of the run offers the tool. */
  mcp: boolean;
}

/**
 * The route of one pending call. A call that had started when the engine stopped (`started`) is not
 * run again: its result is unknown, and the model is told so.
 */
export function routeCall(item: PendingCall, facts: CallFacts): CallRoute {
  if (facts.recorded) return 'recorded';
  if (facts.asksHuman) return 'ask-human';
  if (item.started) return 'lost';
  return facts.mcp ? 'mcp' : 'command';
}
