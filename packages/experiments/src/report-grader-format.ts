import type { JudgeUsage } from './judge-usage.js';
import type { GraderChoice, GraderSummary } from './select-grader.js';

const CHOICE: Record<GraderChoice, string> = {
  asked: 'picked with --grader',
  batch: "the batch's own",
  latest: 'the latest to grade; the batch has no grader of its own that graded a run',
};

/** The grader a report shows, why that one, and the others there are to pick from. */
export function graderLine(grader: GraderSummary | null, graders: readonly GraderSummary[], choice: GraderChoice | null = null): string {
  if (grader === null) return 'Grader: none (no run is graded).';
  const others = graders.filter((other) => other.hash !== grader.hash);
  const parts = [
    ...(choice === null ? [] : [CHOICE[choice]]),
    `${grader.runs} run${grader.runs === 1 ? '' : 's'} graded`,
    ...(others.length > 0
      ? [
          `${others.length} other grader${others.length > 1 ? 's' : ''}: ${others.map((other) => other.hash).join(', ')}, pick one with --grader HASH`,
        ]
      : []),
  ];
  return `Grader ${grader.hash}: ${grader.command} (${parts.join('; ')})`;
}

/** What a figure's scores come from, for its heading: `grader 3fa2c1d09e12`, or `no grader`. */
export function scoredBy(grader: GraderSummary | null): string {
  return grader === null ? 'no grader' : `grader ${grader.hash}`;
}

/** `400 tokens in · 40 out · cost 0.0006 USD (2 runs judged)`: what a model judge spent. */
export function judgeUsageText(usage: JudgeUsage): string {
  const count = (value: number) => Math.round(value).toLocaleString('en-US');
  const cost =
    usage.cost === null ? 'no cost (the judge has no pricing)' : `cost ${Number(usage.cost.toFixed(6))} ${usage.currency ?? ''}`.trim();
  return `${count(usage.input_tokens)} tokens in · ${count(usage.output_tokens)} out · ${cost} (${usage.runs} run${usage.runs === 1 ? '' : 's'} judged)`;
}

/** One line per model judge that graded the batch: its tokens and cost, which no figure of the runs includes. */
export function judgeUsageLines(graders: readonly GraderSummary[]): string[] {
  const judges = graders.filter((grader) => grader.usage !== undefined);
  if (judges.length === 0) return [];
  return [
    "Judging, apart from the agent's tokens and cost above:",
    ...judges.map((grader) => `  grader ${grader.hash} (${grader.command}): ${judgeUsageText(grader.usage!)}`),
  ];
}
