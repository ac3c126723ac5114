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
    `${grader.runs} runs graded`,
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
