import type { SandboxEnvConfig } from '@delta/engine';
import type { BatchRunKey } from './batch-layout.js';
import type { Task } from './dataset.js';
import { type Grade, runGrader } from './grade.js';
import { finalAnswerOf, type RunOnDisk } from './run-record.js';

export interface GradeRunOptions {
  environment?: NodeJS.ProcessEnv | undefined;
  timeoutMs?: number | undefined;
  /** The answer as the engine returned it; read from the journal otherwise. */
  finalAnswer?: string | undefined;
  /** The batch's models file, where a `model:NAME` grader finds its judge. */
  modelsFile?: string | undefined;
  /** agent.yaml's `sandbox.env`: what a command grader gets of `environment`, as the agent's tools do. */
  sandboxEnv?: SandboxEnvConfig | undefined;
  /** More secret values no grader gets (see RunGraderOptions.secrets). */
  secrets?: readonly string[] | undefined;
}

/** Runs the grader on one finished run of a batch, telling it the task, the answer and where the run is. */
export function gradeRun(
  command: string,
  task: Task,
  key: BatchRunKey,
  run: Extract<RunOnDisk, { kind: 'run' }>,
  agentHome: string,
  options: GradeRunOptions = {},
): Promise<Grade> {
  return runGrader({
    command,
    ...(options.environment ? { environment: options.environment } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.modelsFile ? { modelsFile: options.modelsFile } : {}),
    ...(options.sandboxEnv ? { sandboxEnv: options.sandboxEnv } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    input: {
      task: {
        id: task.id,
        message: task.message,
        ...(task.metadata ? { metadata: task.metadata } : {}),
        ...(task.expected !== undefined ? { expected: task.expected } : {}),
      },
      model: key.model,
      repeat: key.repeat,
      run_id: run.runId,
      status: run.status,
      final_answer: options.finalAnswer ?? finalAnswerOf(run.events) ?? null,
      work_dir: run.paths.workDir,
      run_dir: run.paths.runDir,
      agent_home: agentHome,
    },
  });
}
