import { usageError } from '../usage-error.js';
import { type RunLimitFlags, runLimitOptions } from '@delta/engine';
import { parseWholeNumber } from '../run-limit-flags.js';
import { baseUrlFlag } from '../override-flags.js';
import { printConfigWarning } from '../config-warnings.js';
import { engineEnvironment } from '../handed-keys.js';
import { abortOnSignals } from '../signals.js';
import { subAgentEnvironment } from '../sub-agent-environment.js';
import { createBatchDisplay } from '@delta/views';
import { taskWorkspaceLimitsFlag } from './task-workspace-flag.js';
import { imageCacheOption, imageFlag } from '../sandbox-flags.js';

export interface BatchFlags extends RunLimitFlags {
  agent?: string;
  out?: string;
  concurrency?: string | number;
  model?: string | string[];
  models?: string;
  repeat?: string | number;
  set?: string | string[];
  baseUrl?: string;
  grader?: string;
  condition?: string;
  retryFailed?: boolean;
  maxAttempts?: string | number;
  json?: boolean;
  strict?: boolean;
  queue?: string;
  wait?: boolean;
  maxTaskWorkspace?: string | string[];
  image?: string;
  imageMap?: string;
  oracle?: boolean;
}

/** `--model a,b --model c`: each model once, in order. */
function modelList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = (Array.isArray(value) ? value : [value]).flatMap((entry) => String(entry).split(',')).map((name) => name.trim());
  if (names.some((name) => name === '')) throw usageError('--model has an empty name.', 'For example: --model gpt-4o,gpt-4o-mini');
  return names;
}

/** `--models FILE`: the batch's models come from it (`--model` then picks entries by name). */
function modelsFile(flags: BatchFlags): { modelsFile?: string } {
  if (flags.models === undefined) return {};
  if (typeof flags.models !== 'string' || flags.models.trim() === '') {
    throw usageError('--models needs the path of one models file.', 'For example: --models models.yaml');
  }
  return { modelsFile: flags.models };
}

/** `--image-map FILE`: the file that gives Harbor tasks their images. */
function imageMapFlag(value: unknown): { imageMap?: string } {
  if (value === undefined) return {};
  if (typeof value !== 'string' || value.trim() === '') {
    throw usageError('--image-map needs the path of one image map file.', 'For example: --image-map images.yaml');
  }
  return { imageMap: value };
}

/** `delta batch TASKS --agent DIR --out DIR`: every task × model × repeat, N at a time, in this process. */
export async function batchCommand(tasksFile: string | undefined, flags: BatchFlags): Promise<number> {
  if (tasksFile === undefined) {
    throw usageError(
      'delta batch needs a TASKS file (JSONL, one task per line) or a directory of Harbor task directories.',
      'For example: delta batch tasks.jsonl --agent ./my-agent --out results',
    );
  }
  if (flags.out === undefined || String(flags.out).trim() === '') {
    throw usageError(
      'delta batch needs --out: the directory that holds the batch runs.',
      'For example: delta batch tasks.jsonl --agent ./my-agent --out results',
    );
  }
  const repeat = parseWholeNumber('--repeat', flags.repeat, '--repeat 3') ?? 1;
  const maxAttempts = parseWholeNumber('--max-attempts', flags.maxAttempts, '--max-attempts 3') ?? 1;
  if (maxAttempts > 100) throw usageError(`--max-attempts is at most 100, got ${maxAttempts}.`, 'For example: --max-attempts 3');
  const models = modelList(flags.model);
  const spec = {
    tasksFile,
    agent: flags.agent ?? '.',
    out: String(flags.out),
    repeat,
    ...(models ? { models } : {}),
    ...modelsFile(flags),
    set: flags.set === undefined ? [] : [flags.set].flat().map(String),
    ...(flags.grader === undefined ? {} : { grader: String(flags.grader) }),
    ...(flags.condition === undefined ? {} : { condition: String(flags.condition) }),
    ...taskWorkspaceLimitsFlag(flags.maxTaskWorkspace),
    ...(flags.image === undefined ? {} : { image: imageFlag(flags.image)! }),
    ...imageMapFlag(flags.imageMap),
    strict: flags.strict === true,
  };
  if (flags.oracle === true) {
    if (flags.queue !== undefined) {
      throw usageError(
        '--oracle runs here, not through a queue: leave out --queue.',
        `For example: delta batch ${tasksFile} --agent ... --out ... --oracle`,
      );
    }
    const { oracleCommand } = await import('./oracle-command.js');
    const concurrency = parseWholeNumber('--concurrency', flags.concurrency, '--concurrency 8') ?? 4;
    return oracleCommand(spec, { concurrency, json: flags.json === true });
  }
  if (flags.queue !== undefined) {
    const { queueBatchCommand } = await import('./queue-batch.js');
    const { concurrency, baseUrl, maxIterations, retries, maxCost, timeout } = flags;
    return queueBatchCommand(spec, {
      queue: String(flags.queue),
      wait: flags.wait === true,
      retryFailed: flags.retryFailed === true,
      maxAttempts,
      json: flags.json === true,
      local: { concurrency, baseUrl, maxIterations, retries, maxCost, timeout },
    });
  }
  if (flags.wait === true)
    throw usageError(
      '--wait follows a queued batch: it needs --queue.',
      'For example: delta batch tasks.jsonl --out results --queue redis://127.0.0.1:6379/0 --wait',
    );
  const concurrency = parseWholeNumber('--concurrency', flags.concurrency, '--concurrency 8') ?? 4;
  const limits = runLimitOptions(flags);
  const endpoint = baseUrlFlag(flags);
  const { batchExitCode, runBatch } = await import('@delta/experiments');
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'the batch');
  const display = createBatchDisplay(
    { json: flags.json === true, terminal: process.stderr.isTTY === true, stdoutTerminal: process.stdout.isTTY === true },
    (text) => process.stdout.write(text),
    (text) => process.stderr.write(text),
  );
  try {
    const summary = await runBatch({
      ...spec,
      concurrency,
      retryFailed: flags.retryFailed === true,
      maxAttempts,
      onWarning: printConfigWarning,
      ...limits,
      ...endpoint,
      environment: engineEnvironment(),
      toolEnv: subAgentEnvironment(),
      ...imageCacheOption(),
      signal: controller.signal,
      onBatchEvent: display.onBatchEvent,
      onRunEvent: (key, event) => display.onRunEvent(event, key),
    });
    return batchExitCode(summary);
  } finally {
    display.stop();
    release();
  }
}
