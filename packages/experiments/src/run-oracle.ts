import { rmSync } from 'node:fs';
import { type LoadedAgent, startRun } from '@delta/engine';
import { ConfigurationError, DeltaError } from '@delta/errors';
import { readBatchDefinition, writeBatchDefinition } from './batch-definition.js';
import { imageOfTask, imageSandboxOptions, pinBatchImages } from './batch-images.js';
import { parseBuiltinGrader } from './builtin-graders.js';
import type { Task } from './dataset.js';
import { gradeRun } from './grade-run.js';
import { type BatchSpec, type OpenedBatch, prepareBatch } from './open-batch.js';
import { ORACLE, oracleAgent, oracleAgentDirectory, oracleModelClient } from './oracle-agent.js';
import { HARBOR_VERIFIER, type OracleVerdict, oracleVerdict, oracleWorkDir } from './oracle-verdict.js';
import { prepareWorkspace } from './prepare-workspace.js';
import { readRunOnDisk } from './run-record.js';
import { runPool } from './run-pool.js';

export interface RunOracleOptions extends BatchSpec {
  /** Oracle runs at a time (default 4). */
  concurrency?: number;
  /** The environment tools and the verifier get of what `sandbox.env` allows (default `process.env`). */
  environment?: NodeJS.ProcessEnv;
  /** Variables added, as they are, to the tools' environment. */
  toolEnv?: Record<string, string>;
  /** Secret values no tool or verifier gets. */
  secrets?: readonly string[];
  /** Aborting interrupts the oracle runs in flight and starts no more. */
  signal?: AbortSignal;
  /** The cache of unpacked images (default ~/.cache/delta/images). */
  imageCache?: string;
  /** Each task's verdict, as it is known. */
  onVerdict?: (verdict: OracleVerdict) => void;
}

export interface OracleSummary {
  out: string;
  /** The command that checked each solution: the batch's grader, else Harbor's `bash /tests/test.sh`. */
  verifier: string;
  /** Every task's verdict, in the batch's order. */
  verdicts: OracleVerdict[];
  passed: number;
  failed: number;
  noOracle: number;
  notRun: number;
  stopped: boolean;
}

/**
 * The oracle's verifier: the batch's command grader, or Harbor's `bash /tests/test.sh` when the batch has none
 * and every task with a solution has `tests`. A built-in grader or a judge compares an answer, which the
 * oracle does not give: refused, as is a model of the batch whose runs would share the oracle's directory.
 */
function oracleVerifier(batch: OpenedBatch): string {
  const clash = batch.definition.models.find((model) => model.directory === ORACLE);
  if (clash !== undefined) {
    throw new ConfigurationError(
      `The model "${clash.name}" of the batch has its runs in OUT/<task>/${ORACLE}/, where --oracle puts the oracle's.`,
      {
        code: 'USAGE',
        field: '--oracle',
        hint: 'Give the model another name (a models file entry of its own), in a new --out.',
      },
    );
  }
  const grader = batch.definition.grader;
  if (grader !== null) {
    if (parseBuiltinGrader(grader) !== undefined || grader.startsWith('model:')) {
      throw new ConfigurationError(
        `--oracle checks each solution with the batch's grader, and ${grader} compares an answer, which the oracle does not give.`,
        {
          code: 'USAGE',
          field: '--grader',
          hint: `Give the batch a command grader that checks the work (for Harbor tasks: --grader '${HARBOR_VERIFIER}').`,
        },
      );
    }
    return grader;
  }
  const untested = [...batch.tasks.values()]
    .filter((task) => task.solution !== undefined && task.tests === undefined)
    .map((task) => task.id);
  if (untested.length > 0) {
    throw new ConfigurationError(
      `--oracle needs a verifier, and the batch has no grader while the tasks ${untested.join(', ')} have no tests.`,
      {
        code: 'USAGE',
        field: '--grader',
        hint: 'Give the batch a --grader (the same command its agent runs are graded with), or give the tasks their tests.',
      },
    );
  }
  return HARBOR_VERIFIER;
}

/** Records in definition.json that the oracle ran, with its verifier and the tasks that have none. */
function recordOracle(batch: OpenedBatch, verifier: string): void {
  const noOracle = [...batch.tasks.values()].filter((task) => task.solution === undefined).map((task) => task.id);
  const definition = {
    ...(readBatchDefinition(batch.out) ?? batch.definition),
    oracle: { verifier, no_oracle: noOracle, ran_at: new Date().toISOString() },
  };
  writeBatchDefinition(batch.out, definition);
  batch.definition = definition;
}

/**
 * Runs one task's oracle, unless a completed one is there: the task's solution as the run's one tool call, in
 * `OUT/<task>/oracle/1/`, then the verifier in that run's final environment (as any grader of the batch).
 */
async function executeOracleRun(
  batch: OpenedBatch,
  task: Task & { solution: string },
  batchAgent: LoadedAgent,
  verifier: string,
  options: RunOracleOptions,
): Promise<string | undefined> {
  const workDir = oracleWorkDir(batch.out, task.id);
  const { environment, toolEnv, secrets, signal, imageCache } = options;
  let found = readRunOnDisk(workDir);
  if (found.kind !== 'run' || found.status !== 'COMPLETED') {
    // The oracle asks no model: a run that did not complete is made again from the start, not continued.
    rmSync(workDir, { recursive: true, force: true });
    prepareWorkspace(workDir, task);
    const agent = oracleAgent(batch.out, task, batchAgent);
    // The task's limits hold its oracle as they hold its agent's runs.
    const sandbox = {
      ...imageSandboxOptions(batch.definition, imageOfTask(batch.definition, task, batchAgent), imageCache),
      ...(task.limits === undefined ? {} : { limits: task.limits }),
    };
    try {
      await startRun({
        agent,
        model: oracleModelClient(),
        message: task.message,
        workDir,
        runId: 'run-1',
        ...(environment ? { environment } : {}),
        ...(toolEnv ? { toolEnv } : {}),
        ...(secrets ? { secrets } : {}),
        ...(signal ? { signal } : {}),
        ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
        ...(task.timeout_sec === undefined ? {} : { timeLimitMs: Math.round(task.timeout_sec * 1000) }),
      });
    } catch (error) {
      if (!DeltaError.isInstance(error)) throw error;
      return error.message;
    }
    found = readRunOnDisk(workDir);
  }
  if (found.kind !== 'run' || found.status !== 'COMPLETED') return undefined;
  const graded = oracleVerdict(batch.out, task.id, { verifier, no_oracle: [] });
  if (graded.verdict !== 'not-run') return undefined;
  await gradeRun(verifier, task, { task: task.id, model: ORACLE, repeat: 1 }, found, oracleAgentDirectory(batch.out, task.id), {
    ...(environment ? { environment } : {}),
    sandboxEnv: batchAgent.config.sandbox?.env,
    secrets,
    imageCache,
  });
  return undefined;
}

/**
 * `delta batch DIR --oracle`: the batch's command (the same tasks, agent and grader) with each task's solution
 * (`solution/solve.sh`) in place of the model. No model is asked and no key is needed. A task whose oracle the
 * verifier does not pass has a broken task or image: the summary lists it, and `delta report` leaves it out
 * of the pass rates. The batch is recorded in OUT as the agent's batch is, so that both share it.
 */
export async function runOracle(options: RunOracleOptions): Promise<OracleSummary> {
  const batch = prepareBatch(options);
  try {
    let verifier: string;
    try {
      verifier = oracleVerifier(batch);
      // Every image is read and pinned to its digest before any run starts, as for the agent's runs.
      await pinBatchImages(batch, options);
    } catch (error) {
      // Nothing ran: a batch this command recorded is not kept, so that the fixed command starts it afresh.
      batch.forgetIfNew();
      throw error;
    }
    recordOracle(batch, verifier);
    const batchAgent = batch.agents.get(batch.definition.models[0]!.name)!;
    const verdicts = new Map<string, OracleVerdict>();
    const tasks = batch.definition.task_ids.map((id) => batch.tasks.get(id)!);
    await runPool(
      tasks,
      options.concurrency ?? 4,
      async (task) => {
        const error =
          task.solution === undefined
            ? undefined
            : await executeOracleRun(batch, { ...task, solution: task.solution }, batchAgent, verifier, options);
        const found = oracleVerdict(batch.out, task.id, { verifier, no_oracle: task.solution === undefined ? [task.id] : [] });
        const verdict: OracleVerdict =
          error === undefined ? found : { ...found, verdict: 'failed', reason: `the oracle could not run: ${error}` };
        verdicts.set(task.id, verdict);
        options.onVerdict?.(verdict);
      },
      options.signal,
    );
    const all = batch.definition.task_ids.map((id) => verdicts.get(id) ?? oracleVerdict(batch.out, id, { verifier, no_oracle: [] }));
    const counted = (kind: OracleVerdict['verdict']) => all.filter((verdict) => verdict.verdict === kind).length;
    return {
      out: batch.out,
      verifier,
      verdicts: all,
      passed: counted('passed'),
      failed: counted('failed'),
      noOracle: counted('no-oracle'),
      notRun: counted('not-run'),
      stopped: options.signal?.aborted === true,
    };
  } finally {
    batch.release();
  }
}
