import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { usageError } from './usage-error.js';
import { runLimitOptions } from './run-limit-flags.js';
import { chooseWorkspace } from './choose-workspace.js';
import { printConfigWarning } from './config-warnings.js';
import { baseUrlFlag } from './override-flags.js';
import { engineEnvironment } from './handed-keys.js';
import { type ModelsFlags, runModelOf, runOverrides } from './run-models.js';
import { withEngineSession } from './engine-session.js';
import { reportOutcome } from './report-outcome.js';
import { parseOutputFormat } from './result/output-format.js';
import { parseRunIdFlag, runIdTaken } from './run-id-flag.js';
import { parseSandboxFlags } from './sandbox-flags.js';

export interface RunFlags extends ModelsFlags {
  agent?: string;
  message?: string;
  workDir?: string;
  maxIterations?: string | number;
  maxCost?: string | number;
  timeout?: string | number;
  retries?: string | number;
  yes?: boolean;
  verbose?: boolean;
  interactive?: boolean;
  quiet?: boolean;
  json?: boolean;
  strict?: boolean;
  runId?: string;
  /** Start a new run even when the latest one could be resumed. */
  new?: boolean;
  format?: string;
  sandbox?: string;
  network?: boolean;
}

export function parseMaxIterations(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw usageError(`--max-iterations must be a whole number of at least 1, got "${value}".`, 'For example: --max-iterations 30');
  }
  return number;
}

/** `--retries N`: 0 to 10, as `llm.max_retries` allows. */
export function parseRetries(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (String(value).trim() === '' || !Number.isInteger(number) || number < 0 || number > 10) {
    throw usageError(`--retries must be a whole number from 0 to 10, got "${value}".`, 'For example: --retries 5 (0: no retry)');
  }
  return number;
}

/**
 * A `-w DIR` outside the agent's workspaces/ is listed in its OTHER_WORKSPACES, for `delta list --agent`.
 * An agent directory that cannot be written (read-only, say) does not stop the run: a note says what is lost.
 */
function noteOtherWorkspace(agentHome: string, workDir: string, record: (agentHome: string, workDir: string) => void): void {
  try {
    record(agentHome, workDir);
  } catch (error) {
    process.stderr.write(
      `note: ${workDir} could not be listed in ${join(agentHome, 'workspaces', 'OTHER_WORKSPACES')} (${error instanceof Error ? error.message : String(error)}); \`delta list --agent\` will not show its runs (\`delta list -w ${workDir}\` will).\n`,
    );
  }
}

const RESUMABLE = new Set(['INTERRUPTED', 'WAITING_FOR_INPUT', 'RUNNING']);

/** `delta run`: load the agent, pick the workspace, start (or auto-resume) the run, print the answer. */
export async function runCommand(flags: RunFlags): Promise<number> {
  if (flags.message === undefined || String(flags.message).trim() === '') {
    throw usageError(
      'delta run needs a task: -m/--message is missing.',
      'For example: delta run --agent ./my-agent -m "Summarise README.md"',
    );
  }
  const maxIterations = parseMaxIterations(flags.maxIterations);
  const maxRetries = parseRetries(flags.retries);
  const limits = runLimitOptions(flags);
  const format = parseOutputFormat(flags);
  const runId = flags.runId === undefined ? undefined : parseRunIdFlag(flags.runId);
  const sandbox = parseSandboxFlags(flags);
  const engine = await import('@delta/engine');
  const { readLatestRunId, readMetadata, recordOtherWorkspace, runPaths } = await import('@delta/journal');
  const baseUrl = baseUrlFlag(flags);
  // --models: the entry --model names, its key read now (before a workspace is made), laid over agent.yaml.
  const model = await runModelOf(flags, engineEnvironment());
  const loaded = engine.loadAgent(flags.agent ?? '.', { strict: flags.strict === true, overrides: runOverrides(flags) });
  const agent = model ? model.apply(loaded) : loaded;
  for (const warning of agent.warnings) printConfigWarning(warning);
  const message = String(flags.message);
  const workDir = flags.workDir === undefined ? await chooseWorkspace(agent.home, flags.yes === true) : resolve(flags.workDir);
  if (flags.verbose === true) (await import('./report-settings.js')).reportSettings(agent, workDir, (text) => process.stderr.write(text));
  if (flags.workDir !== undefined) noteOtherWorkspace(agent.home, workDir, recordOtherWorkspace);

  // Smart resume (spec 2.6.1): the workspace's latest run is interrupted, paused or crashed. Not with
  // --run-id or --new: the caller asked for a new run (another run may be going on beside it).
  const latest = runId === undefined && flags.new !== true ? readLatestRunId(workDir) : undefined;
  const latestMetadata =
    latest && existsSync(runPaths(workDir, latest).metadata) ? readMetadata(runPaths(workDir, latest).metadata) : undefined;
  const resume = latestMetadata !== undefined && RESUMABLE.has(latestMetadata.status);

  return withEngineSession(
    flags.interactive === true,
    async (session, endProgress) => {
      const common = {
        ...session,
        ...baseUrl,
        ...model?.engine,
        sandbox,
        ...(maxIterations === undefined ? {} : { maxIterations }),
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...limits,
      };
      let result;
      if (resume) {
        const waiting = latestMetadata.status === 'WAITING_FOR_INPUT';
        const responseFile = join(runPaths(workDir, latest!).interactionDir, 'response.txt');
        const answerFromFile = waiting && existsSync(responseFile);
        process.stderr.write(
          `Resuming run ${latest} (${latestMetadata.status}) in ${workDir}: ` +
            (waiting
              ? answerFromFile
                ? 'its answer is taken from interaction/response.txt; your -m message is not used (send it afterwards with delta continue -m).\n'
                : 'your -m message is the answer to its question.\n'
              : 'your -m message is added to it (add --new to start a new run instead).\n'),
        );
        result = await engine.continueRun({ ...common, agent, workDir, runId: latest!, ...(answerFromFile ? {} : { message }) });
      } else {
        try {
          result = await engine.startRun({ ...common, agent, message, workDir, ...(runId === undefined ? {} : { runId }) });
        } catch (error) {
          throw runId === undefined ? error : runIdTaken(error, runId, workDir);
        }
      }
      endProgress();
      return reportOutcome(result, flags.verbose === true, { json: flags.json === true, format });
    },
    flags,
  );
}
