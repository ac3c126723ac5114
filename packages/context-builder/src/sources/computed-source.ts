import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory, SystemError } from '@delta/errors';
import { formatCapturedOutput, runCommand, type CommandLauncher } from '@delta/command-runner';
import { substituteEngineVariables, type ComputedFileSource } from '../manifest.js';
import { readSourceFile, type BlockText } from './file-source.js';
import { sourceId, type SourceContext } from './source-context.js';

export interface GeneratorContext extends SourceContext {
  runId: string;
  journalPath: string;
  /** The environment generators run with (the engine leaves out model credentials). */
  env: Record<string, string>;
  /** Where the generator's run is recorded: command.txt, stdout.log, stderr.log, exit_code.txt, duration_ms.txt. */
  recordDirectory?: string;
  signal?: AbortSignal;
  /** Starts the generator when its output is recorded to files (see CommandLauncher). */
  launcher?: CommandLauncher;
}

/** Runs the generator in the workspace with the variables of spec 2.4.3; throws with its stderr when it fails. */
async function runGenerator(source: ComputedFileSource, index: number, context: GeneratorContext): Promise<void> {
  const [file, ...args] = source.generator.command.map((part) => substituteEngineVariables(part, context));
  const record = context.recordDirectory;
  if (record) {
    makeDirectory(record);
    writeFileSync(join(record, 'command.txt'), `${JSON.stringify([file, ...args])}\n`);
  }
  const result = await runCommand({
    file: file!,
    args,
    cwd: context.cwd,
    env: {
      ...context.env,
      DELTA_RUN_ID: context.runId,
      DELTA_AGENT_HOME: context.agentHome,
      DELTA_CWD: context.cwd,
      JOURNAL_PATH: context.journalPath,
    },
    timeoutMs: source.generator.timeout_ms,
    ...(context.signal ? { signal: context.signal } : {}),
    ...(record ? { stdoutFile: join(record, 'stdout.log'), stderrFile: join(record, 'stderr.log') } : {}),
    ...(context.launcher ? { launcher: context.launcher } : {}),
  });
  if (record) {
    writeFileSync(join(record, 'exit_code.txt'), `${result.exitCode ?? ''}\n`);
    writeFileSync(join(record, 'duration_ms.txt'), `${Math.round(result.durationMs)}\n`);
  }
  if (result.exitCode === 0) return;
  const why = result.startError
    ? result.startError
    : result.timedOut
      ? `timed out after ${source.generator.timeout_ms} ms and was stopped`
      : result.aborted
        ? 'was stopped because the run was interrupted'
        : `exited with ${result.exitCode ?? result.signal}`;
  const stderr = formatCapturedOutput(result.stderr).trim();
  throw new SystemError(
    `context source "${sourceId(source, index)}" (computed_file): the generator ${why}${stderr ? `\nstderr:\n${stderr}` : ''}`,
    {
      code: 'CONTEXT_GENERATOR_FAILED',
      file: context.manifestFile,
      field: `sources[${index}].generator`,
      hint: result.timedOut
        ? `Make the generator faster, raise sources[${index}].generator.timeout_ms, or set on_missing: skip to go on without it.`
        : `Run the generator by hand in ${context.cwd} to see why, or set on_missing: skip to go on without it.`,
    },
  );
}

/**
 * Runs a `computed_file` generator and reads what it wrote to output_path. With `on_missing: skip`, a
 * generator that fails or times out, or an output that is missing, leaves the source out (undefined).
 */
export async function readComputedSource(
  source: ComputedFileSource,
  index: number,
  context: GeneratorContext,
): Promise<BlockText | undefined> {
  try {
    await runGenerator(source, index, context);
  } catch (error) {
    // An interrupted run stops here whatever on_missing says.
    if (source.on_missing === 'skip' && !context.signal?.aborted) return undefined;
    throw error;
  }
  return readSourceFile(source, index, context);
}
