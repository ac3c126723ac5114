import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { ConfigurationError, makeDirectory, parseJson } from '@delta/errors';
import { z } from 'zod';
import { writeFileOnce } from './write-once.js';

/**
 * `OUT/.batch/identity.json`: which batch a directory holds, so that a worker can tell the batch it was
 * sent from another directory at the same path (a local disk where the shared one should be mounted).
 */
export const BatchIdentity = z.looseObject({
  batch_id: z.string().min(1),
  /** The batch directory's absolute path, as every worker must see it. */
  out: z.string().min(1),
  /** The BullMQ queue that holds the batch's runs. */
  queue: z.string().min(1),
  host: z.string(),
  created_at: z.string(),
});
export type BatchIdentity = z.infer<typeof BatchIdentity>;

export function batchIdentityFile(out: string): string {
  return join(out, '.batch', 'identity.json');
}

/** `delta-<OUT's name>-<8 hex>`: readable in redis-cli, unique per batch; BullMQ's names take no `:`. */
export function queueNameOf(out: string, batchId: string): string {
  const name = basename(out)
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .slice(0, 60);
  return `delta-${name}-${batchId.slice(0, 8)}`;
}

export function readBatchIdentity(out: string): BatchIdentity | undefined {
  const file = batchIdentityFile(out);
  if (!existsSync(file)) return undefined;
  return parseJson(readFileSync(file, 'utf8'), file, { schema: BatchIdentity });
}

/** The batch's identity, written by the first `delta batch --queue` (linked into place whole: two at once agree). */
export function claimBatchIdentity(out: string): BatchIdentity {
  const found = readBatchIdentity(out);
  if (found) return found;
  const batchId = randomUUID();
  const identity: BatchIdentity = {
    batch_id: batchId,
    out,
    queue: queueNameOf(out, batchId),
    host: hostname(),
    created_at: new Date().toISOString(),
  };
  const file = batchIdentityFile(out);
  makeDirectory(join(out, '.batch'));
  writeFileOnce(file, `${JSON.stringify(identity, null, 2)}\n`);
  return readBatchIdentity(out)!;
}

function notShared(out: string, batchId: string, problem: string): ConfigurationError {
  return new ConfigurationError(
    `This worker (on ${hostname()}) cannot see the batch ${batchId} at ${out}: ${problem}. It refuses the run rather than create a second copy of it.`,
    {
      code: 'BATCH_NOT_SHARED',
      file: batchIdentityFile(out),
      hint: `Mount the storage that holds the batch at ${out} on this machine too (the same absolute path on every worker), then start the worker again.`,
    },
  );
}

/** Checks that `out` on this machine is the batch the job came from, and returns its identity; throws BATCH_NOT_SHARED otherwise. Reads only. */
export function checkBatchIdentity(out: string, batchId: string): BatchIdentity {
  if (!existsSync(out)) throw notShared(out, batchId, 'the directory does not exist here');
  let found: BatchIdentity | undefined;
  try {
    found = readBatchIdentity(out);
  } catch (error) {
    throw notShared(out, batchId, `its identity file does not parse (${(error as Error).message})`);
  }
  if (!found) throw notShared(out, batchId, `it has no ${batchIdentityFile(out)}, so it is another directory`);
  if (found.batch_id !== batchId) throw notShared(out, batchId, `the directory there holds another batch (${found.batch_id})`);
  return found;
}
