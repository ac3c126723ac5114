import { usageError } from '../usage-error.js';
import { runLimitOptions } from '../run-limit-flags.js';
import { baseUrlFlag } from '../override-flags.js';
import { printConfigWarning } from '../config-warnings.js';
import { engineEnvironment } from '../handed-keys.js';
import { parseMaxIterations, parseRetries } from '../run-command.js';
import { abortOnSignals } from '../signals.js';
import { subAgentEnvironment } from '../sub-agent-environment.js';
import { createBatchDisplay } from './batch-display.js';

export interface BatchFlags {
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
  maxIterations?: string | number;
  maxCost?: string | number;
  timeout?: string | number;
  retries?: string | number;
  json?: boolean;
  strict?: boolean;
  queue?: string;
  wait?: boolean;
}

function wholeNumber(flag: string, value: string | number | undefined, fallback: number, example: string): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 1) {
    throw usageError(`${flag} must be a whole number of at least 1, got "${value}".`, `For example: ${example}`);
  }
  return number;
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

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/** Exit code: 0 when every run completed; 130 when stopped; 1 with failed runs; 101 with runs waiting for a person; 3 with runs interrupted. */
function exitCodeOf(summary: { stopped: boolean; failed: number; errors: number; waiting: number; interrupted: number }): number {
  if (summary.stopped) return 130;
  if (summary.failed > 0 || summary.errors > 0) return 1;
  if (summary.waiting > 0) return 101;
  if (summary.interrupted > 0) return 3;
  return 0;
}

/** `delta batch TASKS --agent DIR --out DIR`: every task × model × repeat, N at a time, in this process. */
export async function batchCommand(tasksFile: string | undefined, flags: BatchFlags): Promise<number> {
  if (tasksFile === undefined) {
    throw usageError(
      'delta batch needs a TASKS file (JSONL, one task per line).',
      'For example: delta batch tasks.jsonl --agent ./my-agent --out results',
    );
  }
  if (flags.out === undefined || String(flags.out).trim() === '') {
    throw usageError(
      'delta batch needs --out: the directory that holds the batch runs.',
      'For example: delta batch tasks.jsonl --agent ./my-agent --out results',
    );
  }
  const repeat = wholeNumber('--repeat', flags.repeat, 1, '--repeat 3');
  const maxAttempts = wholeNumber('--max-attempts', flags.maxAttempts, 1, '--max-attempts 3');
  if (maxAttempts > 100) throw usageError(`--max-attempts is at most 100, got ${maxAttempts}.`, 'For example: --max-attempts 3');
  if (flags.queue !== undefined) {
    const { queueBatchCommand } = await import('./queue-batch.js');
    const { concurrency, baseUrl, maxIterations, retries, maxCost, timeout } = flags;
    const models = modelList(flags.model);
    return queueBatchCommand(
      {
        tasksFile,
        agent: flags.agent ?? '.',
        out: String(flags.out),
        repeat,
        ...(models ? { models } : {}),
        ...modelsFile(flags),
        set: list(flags.set),
        ...(flags.grader === undefined ? {} : { grader: String(flags.grader) }),
        ...(flags.condition === undefined ? {} : { condition: String(flags.condition) }),
        strict: flags.strict === true,
      },
      {
        queue: String(flags.queue),
        wait: flags.wait === true,
        retryFailed: flags.retryFailed === true,
        maxAttempts,
        json: flags.json === true,
        local: { concurrency, baseUrl, maxIterations, retries, maxCost, timeout },
      },
    );
  }
  if (flags.wait === true)
    throw usageError(
      '--wait follows a queued batch: it needs --queue.',
      'For example: delta batch tasks.jsonl --out results --queue redis://127.0.0.1:6379/0 --wait',
    );
  const concurrency = wholeNumber('--concurrency', flags.concurrency, 4, '--concurrency 8');
  const maxIterations = parseMaxIterations(flags.maxIterations);
  const maxRetries = parseRetries(flags.retries);
  const models = modelList(flags.model);
  const limits = runLimitOptions(flags);
  const endpoint = baseUrlFlag({ ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }) });
  const { runBatch } = await import('@delta/experiments');
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'the batch');
  const display = createBatchDisplay(
    { json: flags.json === true, terminal: process.stderr.isTTY === true },
    (text) => process.stdout.write(text),
    (text) => process.stderr.write(text),
  );
  try {
    const summary = await runBatch({
      tasksFile,
      agent: flags.agent ?? '.',
      out: String(flags.out),
      concurrency,
      repeat,
      ...(models ? { models } : {}),
      ...modelsFile(flags),
      set: list(flags.set),
      ...(flags.grader === undefined ? {} : { grader: String(flags.grader) }),
      ...(flags.condition === undefined ? {} : { condition: String(flags.condition) }),
      retryFailed: flags.retryFailed === true,
      maxAttempts,
      strict: flags.strict === true,
      onWarning: printConfigWarning,
      ...(maxIterations === undefined ? {} : { maxIterations }),
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...limits,
      ...endpoint,
      environment: engineEnvironment(),
      toolEnv: subAgentEnvironment(),
      signal: controller.signal,
      onBatchEvent: display.onBatchEvent,
      onRunEvent: (key, event) => display.onRunEvent(event, key),
    });
    return exitCodeOf(summary);
  } finally {
    display.stop();
    release();
  }
}
