import { z } from 'zod';

/** A grade: `grades/<grader hash>.json` and the latest `grade.json` in the run directory (`.delta/<run_id>/`): what the grader said about the run. */
export const Grade = z.looseObject({
  /** The score: the grader's `score`, or 1 and 0 for exit codes 0 and 1. Null when the grader itself failed. */
  score: z.number().nullable(),
  /** Pass or fail, for a grader that answered by its exit code (or printed `passed`); null for a plain score. */
  passed: z.boolean().nullable(),
  /** The JSON object the grader printed, when it printed one. */
  details: z.record(z.string(), z.unknown()).optional(),
  /** Why there is no score: the grader timed out, exited with another code, or printed no usable score. */
  error: z.string().optional(),
  /** The grader's command (or built-in name) as given. */
  grader: z.string(),
  /** The first 12 hex digits of its SHA-256: the name of its file under grades/ (absent in older grades). */
  grader_hash: z.string().optional(),
  exit_code: z.number().nullable(),
  /** Where a command grader's output is kept (its stdout.log, stderr.log, and in an image its /logs/verifier). */
  output: z.looseObject({ stdout: z.string(), stderr: z.string(), logs: z.string().optional() }).optional(),
  /** Where it ran: `image` (the run's final environment), else this machine. */
  ran_in: z.enum(['host', 'image']).optional(),
  /** The grader passed its time limit (the task's `verifier.timeout_sec`, else 5 minutes) and was stopped: a verifier error. */
  timed_out: z.boolean().optional(),
  /** The limits the run ran into (its metadata.json's `limits_hit`): a score got under them, or none. */
  limits_hit: z.array(z.string()).optional(),
  run_id: z.string(),
  graded_at: z.string(),
});
export type Grade = z.infer<typeof Grade>;
