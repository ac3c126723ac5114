import { ConfigurationError } from '@delta/errors';
import type { Grade } from './grade-schema.js';
import { graderHash } from './grade-store.js';
import { type JudgeUsage, judgeUsageOf, sumJudgeUsage } from './judge-usage.js';

/** A grader that graded runs of a batch, as a report names it. */
export interface GraderSummary {
  /** The first 12 hex digits of the SHA-256 of its command: its file name under each run's grades/. */
  hash: string;
  command: string;
  /** Runs it graded (their current run). */
  runs: number;
  /** When it last graded one of them. */
  latest: string;
  /** A model judge's tokens and cost over the runs it graded, apart from the agent's (absent for a grader that calls no model). */
  usage?: JudgeUsage;
}

/**
 * Why the report shows this grader: `asked` with --grader; `batch`, the batch's own grader (its --grader or
 * agent.yaml's `grader:`); `latest`, the one that graded last, when the batch has none of its own or its own
 * graded no run.
 */
export type GraderChoice = 'asked' | 'batch' | 'latest';

function summarize(gradesByRun: readonly ReadonlyMap<string, Grade>[]): GraderSummary[] {
  const graders = new Map<string, GraderSummary>();
  for (const grades of gradesByRun) {
    for (const [hash, grade] of grades) {
      const known = graders.get(hash) ?? { hash, command: grade.grader, runs: 0, latest: grade.graded_at };
      known.runs += 1;
      if (grade.graded_at > known.latest) known.latest = grade.graded_at;
      const usage = judgeUsageOf(grade);
      if (usage !== undefined) known.usage = sumJudgeUsage(known.usage, usage);
      graders.set(hash, known);
    }
  }
  return [...graders.values()].sort((a, b) => (a.latest === b.latest ? a.hash.localeCompare(b.hash) : a.latest < b.latest ? 1 : -1));
}

/**
 * The grader a report shows: the one asked for (its command exactly, or its hash or a prefix of 4+ digits
 * of it), else the batch's own (`own`, as its definition records it) when it graded a run, else the one
 * that graded last. Asking for a grader that graded nothing is a usage error that lists those that did.
 */
export function selectGrader(
  gradesByRun: readonly ReadonlyMap<string, Grade>[],
  asked: string | undefined,
  out: string,
  own: string | null = null,
): { grader: GraderSummary | null; graders: GraderSummary[]; choice: GraderChoice | null } {
  const graders = summarize(gradesByRun);
  if (asked === undefined) {
    const batchOwn = own === null ? undefined : graders.find((grader) => grader.hash === graderHash(own));
    if (batchOwn !== undefined) return { grader: batchOwn, graders, choice: 'batch' };
    return { grader: graders[0] ?? null, graders, choice: graders.length === 0 ? null : 'latest' };
  }
  const wanted = asked.trim().toLowerCase();
  const matches = graders.filter(
    (grader) => grader.command === asked || grader.hash === graderHash(asked) || (wanted.length >= 4 && grader.hash.startsWith(wanted)),
  );
  if (matches.length === 1) return { grader: matches[0]!, graders, choice: 'asked' };
  const listed = graders.map((grader) => `${grader.hash}  ${grader.command}`).join('\n  ');
  throw new ConfigurationError(
    matches.length === 0
      ? `No run of the batch in ${out} was graded by "${asked}".`
      : `"${asked}" names ${matches.length} graders of the batch in ${out}.`,
    {
      code: 'USAGE',
      field: '--grader',
      hint:
        graders.length === 0
          ? `No run is graded yet: delta grade ${out} --grader CMD.`
          : `Give a command or hash from these:\n  ${listed}\nor grade with it first: delta grade ${out} --grader CMD.`,
    },
  );
}
