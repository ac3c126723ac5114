import { engineEnvironment } from '../handed-keys.js';
import { baseUrlFlag } from '../override-flags.js';
import { abortOnSignals } from '../signals.js';
import { subAgentEnvironment } from '../sub-agent-environment.js';
import { usageError } from '../usage-error.js';
import { describeOutcome } from './batch-display.js';
import { loadOptional, SCALE_OUT } from '../optional-packages.js';

export interface WorkerFlags {
  queue?: string;
  concurrency?: string | number;
  baseUrl?: string;
  lockDuration?: string | number;
}

function positive(flag: string, value: string | number | undefined, fallback: number, example: string): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 1) {
    throw usageError(`${flag} must be a whole number of at least 1, got "${value}".`, `For example: ${example}`);
  }
  return number;
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
  const concurrency = positive('--concurrency', flags.concurrency, 1, '--concurrency 4');
  const lockSeconds = positive('--lock-duration', flags.lockDuration, 30, '--lock-duration 30');
  const endpoint = baseUrlFlag({ ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }) });
  const { parseRedisAddress, runWorker } = await loadOptional('delta worker', SCALE_OUT, () => import('@delta/queue'));
  const address = parseRedisAddress(String(flags.queue));
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'the worker');
  try {
    await runWorker({
      address,
      concurrency,
      lockDurationMs: lockSeconds * 1_000,
      signal: controller.signal,
      engine: { ...endpoint, environment: engineEnvironment(), toolEnv: subAgentEnvironment() },
      log: (line) => process.stderr.write(`worker ${process.pid}: ${line}\n`),
      onRunStart: (key, workDir) =>
        process.stderr.write(`worker ${process.pid}: start ${key.task} / ${key.model} / ${key.repeat} in ${workDir}\n`),
      onRunEnd: (outcome) => process.stdout.write(`${describeOutcome(outcome)}\n`),
    });
  } finally {
    release();
  }
  return 130;
}
