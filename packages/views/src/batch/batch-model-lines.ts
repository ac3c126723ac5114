import type { BatchRunOutcome } from '@delta/experiments';
import { formatCount } from '../inspect/format-numbers.js';

/** What a batch's runs of one model have done so far. */
interface ModelTally {
  runs: number;
  done: number;
  failed: number;
  scores: number[];
  tokens: number;
  cost: number;
}

/** "pass rate 67% (2/3)" for scores of 0 and 1, "mean score 0.72 (3 scored)" otherwise; '' with no score yet. */
export function scoreText(scores: readonly number[]): string {
  if (scores.length === 0) return '';
  if (scores.every((score) => score === 0 || score === 1)) {
    const passed = scores.filter((score) => score === 1).length;
    return `pass rate ${Math.round((passed / scores.length) * 100)}% (${passed}/${scores.length})`;
  }
  const mean = scores.reduce((sum, score) => sum + score, 0) / scores.length;
  return `mean score ${mean.toFixed(2)} (${scores.length} scored)`;
}

/**
 * The per-model tallies of a batch on a terminal: one line each, under the live line. A model of a later
 * condition (`<model>+NAME`) is a model entry of its own, so it has its own line.
 */
export class ModelLines {
  private readonly tallies = new Map<string, ModelTally>();

  private tally(model: string): ModelTally {
    let tally = this.tallies.get(model);
    if (!tally) {
      tally = { runs: 0, done: 0, failed: 0, scores: [], tokens: 0, cost: 0 };
      this.tallies.set(model, tally);
    }
    return tally;
  }

  /** The batch's models, in its order, with how many runs each has in this command. */
  start(models: readonly string[], runs: number): void {
    for (const model of models) this.tally(model).runs = Math.round(runs / models.length);
  }

  /** A run that ended (or was left as it was); its tokens were counted live, as the live line's are. */
  end(outcome: BatchRunOutcome): void {
    const tally = this.tally(outcome.key.model);
    tally.done += 1;
    if (outcome.status === 'FAILED' || outcome.error !== undefined) tally.failed += 1;
    if (outcome.grade?.score !== null && outcome.grade?.score !== undefined) tally.scores.push(outcome.grade.score);
    tally.cost += outcome.cost ?? 0;
  }

  /** Tokens of a run under way, as its model calls come back. */
  addTokens(model: string, tokens: number): void {
    this.tally(model).tokens += tokens;
  }

  /** Every score so far, over all models. */
  allScores(): number[] {
    return [...this.tallies.values()].flatMap((tally) => tally.scores);
  }

  /** One line per model: "  gpt-4o  3/10 done · 1 failed · pass rate 67% (2/3) · 12,345 tokens · cost 0.0123". */
  lines(): string[] {
    const width = Math.max(...[...this.tallies.keys()].map((model) => [...model].length));
    return [...this.tallies.entries()].map(([model, tally]) => {
      const score = scoreText(tally.scores);
      return `  ${model.padEnd(width)}  ${[
        `${tally.done}/${tally.runs} done`,
        `${tally.failed} failed`,
        ...(score === '' ? [] : [score]),
        `${formatCount(tally.tokens)} tokens`,
        ...(tally.cost > 0 ? [`cost ${tally.cost.toFixed(4)}`] : []),
      ].join(' · ')}`;
    });
  }

  get size(): number {
    return this.tallies.size;
  }
}
