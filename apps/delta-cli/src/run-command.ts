import { usageError } from './usage-error.js';
import { chooseWorkspace } from './choose-workspace.js';
import { abortOnSignals } from './signals.js';
import { subAgentEnvironment } from './sub-agent-environment.js';

export interface RunFlags {
  agent?: string;
  message?: string;
  workDir?: string;
  maxIterations?: string | number;
  yes?: boolean;
  verbose?: boolean;
}

export function parseMaxIterations(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw usageError(`--max-iterations must be a whole number of at least 1, got "${value}".`, 'For example: --max-iterations 30');
  }
  return number;
}

/** `delta run`: load the agent, pick the workspace, start the run, print the final answer. */
export async function runCommand(flags: RunFlags): Promise<number> {
  if (flags.message === undefined || String(flags.message).trim() === '') {
    throw usageError('delta run needs a task: -m/--message is missing.', 'For example: delta run --agent ./my-agent -m "Summarise README.md"');
  }
  const maxIterations = parseMaxIterations(flags.maxIterations);
  const { loadAgent, startRun } = await import('@delta/engine');
  const agent = loadAgent(flags.agent ?? '.');
  for (const warning of agent.warnings) {
    const where = warning.line === undefined ? warning.file : `${warning.file}:${warning.line}:${warning.column}`;
    process.stderr.write(`warning: ${where} ${warning.field}: ${warning.message}\n`);
  }
  const workDir = flags.workDir ?? (await chooseWorkspace(agent.home, flags.yes === true));
  if (flags.verbose === true) (await import('./report-settings.js')).reportSettings(agent, workDir, (text) => process.stderr.write(text));
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text));
  try {
    const result = await startRun({
      agent,
      message: String(flags.message),
      workDir,
      ...(maxIterations === undefined ? {} : { maxIterations }),
      signal: controller.signal,
      toolEnv: subAgentEnvironment(),
      onLog: (line) => process.stderr.write(`${line}\n`),
    });
    if (result.status === 'COMPLETED') {
      if (result.finalAnswer) process.stdout.write(`${result.finalAnswer}\n`);
    } else if (result.status === 'FAILED') {
      const { reportError } = await import('./report-error.js');
      reportError(result.error ?? result.reason, flags.verbose === true, (text) => process.stderr.write(text));
      process.stderr.write(`The run is recorded in ${result.paths.runDir}\n`);
    } else if (result.status === 'INTERRUPTED') {
      process.stderr.write(`Run ${result.runId} stopped: ${result.reason}.\nResume it with: delta continue -w ${result.workDir}\n`);
    }
    return result.exitCode;
  } finally {
    release();
  }
}
