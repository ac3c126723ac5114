import { z } from 'zod';

/** The name every run job has in a batch's queue. */
export const RUN_JOB_NAME = 'run';

/**
 * What a job carries: where the batch is and which run, signed, nothing else. No model key, no endpoint,
 * no environment: a worker reads its own (the engine's environment and `.env`), so nothing secret is in
 * Redis. A worker trusts none of it: see verify-run-job.ts.
 */
export const RunJobData = z.object({
  out: z.string().min(1),
  batch_id: z.string().min(1),
  task: z.string().min(1),
  model: z.string().min(1),
  repeat: z.number().int().positive(),
  retry_failed: z.boolean(),
  /** Attempts of the run in all when its endpoint fails transiently (`--max-attempts`); 1 when absent. */
  max_attempts: z.number().int().positive().max(100).optional(),
  /** HMAC-SHA256 of the fields above with the batch's key (OUT/.batch/queue.key, never in Redis). */
  signature: z.string().max(200).optional(),
});
export type RunJobData = z.infer<typeof RunJobData>;

/** What a finished job returns (kept in Redis with the job): how the run stands and who ran it. */
export interface RunJobResult {
  status: string;
  action: string;
  run_id?: string;
  iterations?: number;
  host: string;
  pid: number;
}

/** A run's job id in its batch's queue: `<task>/<model directory>/<k>` (no `:`, which BullMQ keeps for itself). */
export function runJobId(task: string, modelDirectory: string, repeat: number): string {
  return `${task}/${modelDirectory}/${repeat}`;
}
