import { describeKey } from '@delta/experiments';
import { describeOutcome } from '@delta/views';
import { engineEnvironment } from '../handed-keys.js';
import { baseUrlFlag } from '../override-flags.js';
import { abortOnSignals } from '../signals.js';
import { subAgentEnvironment } from '../sub-agent-environment.js';
import { imageCacheOption } from '../sandbox-flags.js';
import { usageError } from '../usage-error.js';
import { parseWholeNumber } from '../run-limit-flags.js';
import { loadOptional, SCALE_OUT } from '../optional-packages.js';

export interface WorkerFlags {
  queue?: string;
  /** The storage roots the worker serves batches under (repeatable). */
  root?: string | string[];
  concurrency?: string | number;
  baseUrl?: string;
  lockDuration?: string | number;
}

/**
 * `delta worker --queue URL`: takes runs of every batch queued in that Redis database and executes each
 * as a local batch would, until stopped (SIGINT or SIGTERM: the runs in flight end INTERRUPTED and go
 * back to the queue, exit 130).
 */
export async function workerCommand(flags: WorkerFlags): Promise<number> {
  if (flags.queue === undefined || String(flags.queue).trim() === '') {
    throw usageError(
      'delta worker needs --queue: the Redis the batches were queued in.',
      'For example: delta worker --queue redis://:PASSWORD@10.0.0.5:6379/0',
    );
  }
  const roots = [flags.root ?? []].flat().map(String);
  if (roots.length === 0) {
    throw usageError(
      'delta worker needs --root: the shared directory the batches are in. It serves no batch outside it, nor one a tool could have made.',
      'For example: delta worker --queue redis://:PASSWORD@10.0.0.5:6379/0 --root /shared/results (repeatable)',
    );
  }
  const concurrency = parseWholeNumber('--concurrency', flags.concurrency, '--concurrency 4') ?? 1;
  const lockSeconds = parseWholeNumber('--lock-duration', flags.lockDuration, '--lock-duration 30') ?? 30;
  const endpoint = baseUrlFlag(flags);
  const { parseRedisAddress, runWorker } = await loadOptional('delta worker', SCALE_OUT, () => import('@delta/queue'));
  const address = parseRedisAddress(String(flags.queue));
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'the worker');
  try {
    await runWorker({
      address,
      roots,
      concurrency,
      lockDurationMs: lockSeconds * 1_000,
      signal: controller.signal,
      engine: {
        ...endpoint,
        environment: engineEnvironment(),
        toolEnv: subAgentEnvironment(),
        ...imageCacheOption(),
        // The queue's address and password: in no tool's, hook's or grader's environment, redacted as keys are.
        secrets: [String(flags.queue), ...(address.password === undefined ? [] : [address.password])],
      },
      log: (line) => process.stderr.write(`worker ${process.pid}: ${line}\n`),
      onRunStart: (key, workDir) => process.stderr.write(`worker ${process.pid}: start ${describeKey(key)} in ${workDir}\n`),
      onRunEnd: (outcome) => process.stdout.write(`${describeOutcome(outcome)}\n`),
    });
  } finally {
    release();
  }
  return 130;
}
