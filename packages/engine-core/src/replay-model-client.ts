import { SystemError } from '@delta/errors';
import type { ModelClient } from '@delta/model-wire';
import { recordedResponse, RecordedRequests, type RecordedRun } from './recorded-run.js';
import { compareRequest, type ReplayDivergence, type ReplayMasks, type ReplayPlaces } from './replay-check.js';

/** What a replay has found so far: how many recorded answers were served, and where it diverged. */
export class ReplayCheck {
  served = 0;
  /** The first divergence. */
  divergence: ReplayDivergence | undefined;
  /** Every divergence, in order: the first alone unless `keepGoing`. */
  readonly divergences: ReplayDivergence[] = [];

  /**
   * `keepGoing`: the replay goes on past a divergence (a request that differs still gets its recorded
   * answer), so that every one is reported; by default it stops at the first, since what follows depends on it.
   */
  constructor(
    readonly masks: ReplayMasks = [],
    readonly keepGoing = false,
  ) {}

  /** The tool calls whose results diverged: the requests after them carry those results, already reported. */
  readonly reportedCalls = new Set<string>();

  diverge(divergence: ReplayDivergence): void {
    if (this.divergence !== undefined && !this.keepGoing) return;
    this.divergence ??= divergence;
    this.divergences.push(divergence);
    if (divergence.action) this.reportedCalls.add(divergence.action.id);
  }

  /** Whether the replay must stop now. */
  get stopped(): boolean {
    return this.divergence !== undefined && !this.keepGoing;
  }

  /** The error that ends the replay run at its first divergence. */
  error(): SystemError {
    const divergence = this.divergence!;
    return new SystemError(`The replay diverged from the recorded run: ${divergence.summary}.`, {
      code: 'REPLAY_DIVERGED',
      hint: divergence.diff === '' ? 'See docs/reproducibility.md.' : `${divergence.diff}\n(- recorded, + replay)`,
    });
  }
}

/**
 * A model client that answers with a recorded run's responses, in order, after checking that each request
 * the engine built is the recorded one (see ReplayPlaces for what may differ). At the first divergence, or
 * a call the recorded run did not make, it fails the call, which ends the replay run.
 */
export function replayModelClient(source: RecordedRun, places: ReplayPlaces, check: ReplayCheck): ModelClient {
  const requests = new RecordedRequests(source.paths);
  return {
    baseUrl: `replay:${source.paths.runDir}`,
    async complete(payload, options) {
      const sent = options.body ?? Buffer.from(JSON.stringify(payload), 'utf8');
      options.onRequestBody?.(sent);
      const index = check.served;
      if (check.stopped) throw check.error();
      const thought = source.thoughts[index];
      if (thought === undefined) {
        check.diverge({
          iteration: index + 1,
          what: 'extra_call',
          summary: `iteration ${index + 1}: the engine calls the model again, but the recorded run ended after ${source.thoughts.length} call${source.thoughts.length === 1 ? '' : 's'}`,
          diff: '',
        });
        throw check.error();
      }
      const difference = compareRequest(requests.read(thought.llm_invocation_ref), sent, places, check.masks, check.reportedCalls);
      if (difference) {
        check.diverge({
          iteration: thought.iteration,
          what: 'request',
          summary: `iteration ${thought.iteration}: ${difference.summary}`,
          diff: difference.diff,
        });
        if (check.stopped) throw check.error();
      }
      check.served += 1;
      return recordedResponse(source, thought);
    },
  };
}
