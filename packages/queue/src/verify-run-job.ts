import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '@delta/errors';
import type { OpenedBatch } from '@delta/experiments';
import { type BatchIdentity, queueNameOf } from './batch-identity.js';
import { keyFileLooseness, signatureMatches } from './batch-key.js';
import { RUN_JOB_NAME, type RunJobData, runJobId } from './run-job.js';
import { storageMismatch } from './storage-roots.js';

// Anyone who can write to the batch's Redis can add a job to its queue: a job is a claim, checked against
// what the batch recorded on the shared storage before anything runs. A job that fails a check is refused
// on its own (never retried), and it never stops the batch's real runs.

/** The start of a refused job's failure reason in Redis: what `delta batch --wait` reports apart. */
export const REFUSED_PREFIX = 'refused: ';

/** What a refused job means, and the fix. */
export const REFUSED_HINT =
  'Only `delta batch --queue` makes jobs a worker runs: someone else can write to this Redis. Give it a password (requirepass) and keep it on a private network (docs/scale-out.md).';

/** What a worker already knows of a queue from a job that passed every check: its batch's path and id. */
export interface KnownBatch {
  out: string;
  batch_id: string;
}

export interface JobSeen {
  id: string | undefined;
  name: string;
  queueName: string;
}

/** A job refused: QUEUE_JOB_REFUSED, its message the reason (BullMQ's failure reason, so `refused: ...`). */
export function refusedJob(mismatch: string): ConfigurationError {
  return new ConfigurationError(
    `${REFUSED_PREFIX}${mismatch}; it is not a run of the batch, and was not run (on ${hostname()}, pid ${process.pid}).`,
    {
      code: 'QUEUE_JOB_REFUSED',
      hint: REFUSED_HINT,
    },
  );
}

/** Checks that need no file: the job names the queue it is in, and the batch this worker knows that queue for. */
export function placeMismatch(job: JobSeen, data: RunJobData, known: KnownBatch | undefined): string | undefined {
  if (job.name !== RUN_JOB_NAME) return `its name is ${JSON.stringify(job.name)}, not "${RUN_JOB_NAME}"`;
  if (known && data.out !== known.out) return `its out is ${data.out}, but the batch of this queue is at ${known.out}`;
  if (known && data.batch_id !== known.batch_id) return `its batch id is ${data.batch_id}, but this queue holds batch ${known.batch_id}`;
  const queue = queueNameOf(data.out, data.batch_id);
  if (queue !== job.queueName)
    return `its out is ${data.out} and its batch ${data.batch_id}, whose queue is ${queue}, not ${job.queueName}`;
  return undefined;
}

function repeatsOf(repeat: number): string {
  return repeat === 1 ? '1' : `1 to ${repeat}`;
}

/**
 * The batch directory that holds `out`, if any: a batch inside another batch's directory lies in, or beside,
 * its runs' workspaces, where their tools write, so a tool could have made it (and its agent) up.
 */
export function enclosingBatch(out: string): string | undefined {
  for (let directory = dirname(out); directory !== dirname(directory); directory = dirname(directory)) {
    if (existsSync(join(directory, '.batch', 'identity.json')) || existsSync(join(directory, '.batch', 'definition.json')))
      return directory;
  }
  return undefined;
}

/** Checks of where the job says its batch is, before a file of it is read: see storage-roots.ts. */
export function locationMismatch(out: string, roots: readonly string[]): string | undefined {
  const misplaced = storageMismatch(out, roots);
  if (misplaced !== undefined) return misplaced;
  const enclosing = enclosingBatch(out);
  return enclosing === undefined ? undefined : `its out ${out} lies inside the batch directory ${enclosing}, where runs' tools write`;
}

/** Checks against the batch recorded in its directory: identity, tasks, models, repeats, signature, job id. */
export function recordMismatch(
  job: JobSeen,
  data: RunJobData,
  recorded: { identity: BatchIdentity; key: Buffer | undefined; batch: OpenedBatch },
): string | undefined {
  const { identity, key, batch } = recorded;
  if (identity.out !== data.out) return `its out is ${data.out}, but the batch there was recorded at ${identity.out}`;
  if (identity.queue !== job.queueName) return `the batch at ${data.out} is queued in ${identity.queue}, not ${job.queueName}`;
  if (!batch.tasks.has(data.task)) return `task ${JSON.stringify(data.task)} is not a task of the batch`;
  const model = batch.definition.models.find((candidate) => candidate.name === data.model);
  if (!model) return `model ${JSON.stringify(data.model)} is not a model of the batch`;
  if (data.repeat > batch.definition.repeat) {
    return `repeat ${data.repeat} is not one of the batch's (${repeatsOf(batch.definition.repeat)}, as its --repeat ${batch.definition.repeat})`;
  }
  if (key === undefined) return `the batch has no signing key (${data.out}/.batch/queue.key): run its delta batch --queue command again`;
  const loose = keyFileLooseness(data.out);
  if (loose !== undefined) return loose;
  if (data.signature === undefined) return 'it carries no signature';
  if (!signatureMatches(key, data)) return "its signature does not match the batch's key";
  const expectedId = runJobId(data.task, model.directory, data.repeat);
  if (job.id !== expectedId) return `its id is ${job.id}, not the run's (${expectedId})`;
  return undefined;
}
