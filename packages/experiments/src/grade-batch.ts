import { ConfigurationError } from '@delta/errors';
import { parseBuiltinGrader } from './builtin-graders.js';
import type { Grade } from './grade.js';
import { gradeRun } from './grade-run.js';
import { loadBatchAgent } from './load-batch-agent.js';
import { resolveJudge } from './model-judge.js';
import { readRunOnDisk } from './run-record.js';
import type { BatchRunKey } from './batch-layout.js';
import { batchKeys, openBatchTasks, runDirectoryOf } from './open-batch.js';
import { runPool } from './run-pool.js';

export interface GradeBatchOptions {
  /** The grader; by default the batch's own (its --grader, or agent.yaml's `grader:`). */
  grader?: string;
  concurrency?: number;
  environment?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  signal?: AbortSignal;
  onGraded?: (key: BatchRunKey, grade: Grade) => void;
  /** The cache of unpacked images, where a grader of a run in an image finds its image. */
  imageCache?: string;
}

/**
 * Scores every completed run of the batch in OUT again with `grader`, without running anything else:
 * its grades are added beside any other grader's (grades/<hash>.json) and become the latest grade.json;
 * journals are not touched. Returns the grades by run.
 */
export async function gradeBatch(out: string, options: GradeBatchOptions): Promise<{ key: BatchRunKey; grade: Grade }[]> {
  const batch = openBatchTasks(out);
  const grader = options.grader ?? batch.definition.grader;
  if (grader === null) {
    throw new ConfigurationError(`The batch in ${batch.out} has no grader, and none was given.`, {
      code: 'USAGE',
      hint: `Pass one: delta grade ${out} --grader CMD (or add grader: to agent.yaml for the next batch).`,
    });
  }
  // An unknown built-in name, or a judge the models file lacks, is refused before any run is graded.
  parseBuiltinGrader(grader);
  const judge = resolveJudge(grader, batch.definition.models_file, options.environment ?? process.env);
  // A command grader gets what the agent's tools get of the environment (agent.yaml's sandbox.env, as it is now).
  const command = judge === undefined && parseBuiltinGrader(grader) === undefined;
  const sandboxEnv = command ? loadBatchAgent(batch.definition.agent, { set: batch.definition.set }).config.sandbox?.env : undefined;
  const graded: { key: BatchRunKey; grade: Grade }[] = [];
  await runPool(
    batchKeys(batch.definition),
    options.concurrency ?? 4,
    async (key) => {
      const workDir = runDirectoryOf(batch, key);
      const found = readRunOnDisk(workDir);
      if (found.kind !== 'run' || found.status !== 'COMPLETED') return;
      const grade = await gradeRun(grader, batch.tasks.get(key.task)!, key, found, batch.definition.agent, {
        ...options,
        modelsFile: batch.definition.models_file,
        sandboxEnv,
      });
      graded.push({ key, grade });
      options.onGraded?.(key, grade);
    },
    options.signal,
  );
  return graded;
}
