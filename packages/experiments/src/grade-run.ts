import type { SandboxEnvConfig, SandboxRecord } from '@delta/engine';
import type { BatchRunKey } from './batch-layout.js';
import type { Task } from './dataset.js';
import { type Grade, runGrader } from './grade.js';
import type { RunImage } from './command-grader.js';
import { join } from 'node:path';
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
  /** The cache of unpacked images, for a grader of a run in an image. */
  imageCache?: string | undefined;
}

/** The image the run ran in (its first ENGINE_START's `sandbox.image`), if any. */
function runImage(run: Extract<RunOnDisk, { kind: 'run' }>): RunImage | undefined {
  const start = run.events.find((event) => event.type === 'ENGINE_START') as { sandbox?: { image?: Partial<RunImage> } } | undefined;
  const image = start?.sandbox?.image;
  return image?.reference && image.digest && image.workdir ? (image as RunImage) : undefined;
}

/** The sandbox the run's tools ran in (its first ENGINE_START's `sandbox`: mode and network), if recorded. */
function runSandbox(run: Extract<RunOnDisk, { kind: 'run' }>): Pick<SandboxRecord, 'mode' | 'network'> | undefined {
  const start = run.events.find((event) => event.type === 'ENGINE_START') as { sandbox?: Partial<SandboxRecord> } | undefined;
  const sandbox = start?.sandbox;
  return sandbox?.mode !== undefined && typeof sandbox.network === 'boolean' ? { mode: sandbox.mode, network: sandbox.network } : undefined;
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
  const image = runImage(run);
  const sandbox = runSandbox(run);
  // The task's verifier time wins (Harbor's [verifier] timeout_sec).
  const timeoutMs = task.verifier?.timeout_sec === undefined ? options.timeoutMs : task.verifier.timeout_sec * 1000;
  return runGrader({
    command,
    ...(options.environment ? { environment: options.environment } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(image
      ? {
          image: {
            record: image,
            runLayer: join(run.paths.runDir, 'layer'),
            ...(task.tests === undefined ? {} : { tests: task.tests }),
            ...(options.imageCache === undefined ? {} : { imageCache: options.imageCache }),
            ...(task.verifier?.env === undefined ? {} : { env: task.verifier.env }),
          },
        }
      : {}),
    ...(sandbox ? { runSandbox: sandbox } : {}),
    ...(options.modelsFile ? { modelsFile: options.modelsFile } : {}),
    ...(options.sandboxEnv ? { sandboxEnv: options.sandboxEnv } : {}),
    ...(options.secrets ? { secrets: options.secrets } : {}),
    ...(run.metadata.limits_hit ? { limitsHit: run.metadata.limits_hit } : {}),
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
