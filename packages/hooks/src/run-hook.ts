import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand, type CapturedOutput, type CommandLauncher } from '@delta/command-runner';
import type { HookName } from './hook-names.js';
import { DEFAULT_HOOK_TIMEOUT_MS, type HookDefinition } from './hooks-config.js';
import { substituteEngineVariables } from './engine-variables.js';
import { createHookDirectory, type HookInputs } from './hook-directory.js';
import { hookPayload } from './hook-payload.js';
import { hookEnvironment, type HookRunFacts, type HookValues } from './hook-environment.js';
import { readHookOutputs, type HookOutputs } from './hook-outputs.js';
import { quoteCommand } from './quote-command.js';

export interface RunHookOptions extends HookValues {
  name: HookName;
  definition: HookDefinition;
  /** Numbers the hook's directory, `io/hooks/{step padded to 3}_{name}/`; unique within the run. */
  step: number;
  /** The run's `io/hooks/` directory (RunPaths.hooksDir). */
  hooksDir: string;
  /** The agent directory: `${AGENT_HOME}` in the command. */
  agentHome: string;
  /** The workspace: the hook's working directory and `${CWD}` in the command. */
  cwd: string;
  /** The hook's base environment, already without model credentials. Nothing else is inherited. */
  env: Record<string, string>;
  run: HookRunFacts;
  /** Extra facts for `input/context.json` about what triggered the hook. */
  context?: Record<string, unknown>;
  inputs?: HookInputs;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL when the hook is stopped (default 2000 ms). */
  killGraceMs?: number;
  /** Starts the hook's process (see CommandLauncher); without it the hook is started by forking this process. */
  launcher?: CommandLauncher;
}

export interface HookResult {
  name: HookName;
  /** SUCCESS when the hook exited 0 in time; FAILED otherwise (non-zero exit, timeout, abort, not startable). */
  status: 'SUCCESS' | 'FAILED';
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Why it failed, in one sentence, when it did. */
  failure?: string;
  durationMs: number;
  /** Absolute, with a trailing separator. */
  ioPath: string;
  /** Relative to the run directory, e.g. `io/hooks/005_pre_llm_request/`: the audit event's `io_path_ref`. */
  ioPathRef: string;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  /** Read from `output/` only when the hook succeeded; invalid files are left out and described in `warnings`. */
  outputs: HookOutputs;
  warnings: string[];
  /** pre_tool_execution: an output that makes the gate fail closed (see gateDecision). */
  gateProblem?: string;
}

/**
 * Runs one hook with the file-based I/O protocol: prepares `input/`, runs the command in the workspace in
 * its own process group (killed whole at its timeout), records `execution_meta/`, and reads `output/` when
 * it exited 0. The hook's own failures are in the result; only the engine's (a disk error) are thrown.
 */
export async function runHook(options: RunHookOptions): Promise<HookResult> {
  const { name, run } = options;
  const context = {
    hook_name: name,
    step: options.step,
    run_id: run.runId,
    iteration: run.iterationCount,
    timestamp: new Date().toISOString(),
    ...(options.toolName === undefined ? {} : { tool_name: options.toolName }),
    ...(options.errorMessage === undefined ? {} : { error_message: options.errorMessage }),
    ...options.context,
  };
  const inputs = options.inputs ?? {};
  const directory = createHookDirectory({
    hooksDir: options.hooksDir,
    runDir: run.runDir,
    step: options.step,
    name,
    context,
    inputs,
    payload: hookPayload(name, inputs, context, options.toolResult),
  });
  const variables = { agentHome: options.agentHome, cwd: options.cwd };
  const argv = options.definition.command.map((part) => substituteEngineVariables(part, variables));
  const meta = (file: string) => join(directory.metaDir, file);
  writeFileSync(meta('command.txt'), `${quoteCommand(argv)}\n`);
  const timeoutMs = options.definition.timeout_ms ?? DEFAULT_HOOK_TIMEOUT_MS;

  const result = await runCommand({
    file: argv[0]!,
    args: argv.slice(1),
    cwd: options.cwd,
    env: hookEnvironment({ base: options.env, name, ioPath: directory.ioPath, run, values: options }),
    timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.launcher === undefined ? {} : { launcher: options.launcher }),
    stdoutFile: meta('stdout.log'),
    stderrFile: meta('stderr.log'),
  });
  if (result.startError !== undefined) appendFileSync(meta('stderr.log'), `${result.startError}\n`);
  writeFileSync(meta('exit_code.txt'), `${result.exitCode ?? ''}\n`);
  writeFileSync(meta('duration_ms.txt'), `${Math.round(result.durationMs)}\n`);

  const succeeded = result.exitCode === 0 && !result.timedOut && !result.aborted;
  const failure = succeeded
    ? undefined
    : result.timedOut
      ? `${name} hook timed out after ${timeoutMs} ms and was stopped`
      : result.aborted
        ? `${name} hook was stopped because the run was interrupted`
        : result.startError !== undefined
          ? `${name} hook could not start: ${result.startError}`
          : result.exitCode === null
            ? `${name} hook was killed by ${result.signal ?? 'a signal'}`
            : `${name} hook exited with code ${result.exitCode}`;
  const read = succeeded ? readHookOutputs(name, directory.outputDir) : { outputs: {}, warnings: [] };
  return {
    name,
    status: succeeded ? 'SUCCESS' : 'FAILED',
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    aborted: result.aborted,
    ...(failure === undefined ? {} : { failure }),
    durationMs: result.durationMs,
    ioPath: directory.ioPath,
    ioPathRef: directory.ioPathRef,
    stdout: result.stdout,
    stderr: result.stderr,
    ...read,
  };
}
