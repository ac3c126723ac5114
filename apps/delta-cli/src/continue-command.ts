import { existsSync } from 'node:fs';
import type { LoadedAgent } from '@delta/engine';
import { printConfigWarning } from './config-warnings.js';
import { baseUrlFlag } from './override-flags.js';
import { engineEnvironment } from './handed-keys.js';
import { type ModelsFlags, runModelOf, runOverrides } from './run-models.js';
import { parseMaxIterations, parseRetries } from './run-command.js';
import { usageError } from './usage-error.js';
import { runLimitOptions } from './run-limit-flags.js';
import { parseSandboxFlags } from './sandbox-flags.js';
import { withEngineSession } from './engine-session.js';
import { reportOutcome } from './report-outcome.js';
import { parseOutputFormat } from './result/output-format.js';
import { parseRunIdFlag } from './run-id-flag.js';

export interface ContinueFlags extends ModelsFlags {
  workDir?: string;
  message?: string;
  runId?: string;
  maxIterations?: string | number;
  maxCost?: string | number;
  timeout?: string | number;
  retries?: string | number;
  verbose?: boolean;
  interactive?: boolean;
  quiet?: boolean;
  json?: boolean;
  strict?: boolean;
  format?: string;
  sandbox?: string;
  network?: boolean;
}

/** `delta continue -w DIR [-m TEXT] [--run-id ID]`: the state table of spec 000 section 2.6.2. */
export async function continueCommand(flags: ContinueFlags): Promise<number> {
  if (flags.workDir === undefined) {
    throw usageError('delta continue needs the workspace: -w/--work-dir is missing.', 'For example: delta continue -w ./workspaces/W001');
  }
  const maxIterations = parseMaxIterations(flags.maxIterations);
  const maxRetries = parseRetries(flags.retries);
  const limits = runLimitOptions(flags);
  const format = parseOutputFormat(flags);
  const runId = flags.runId === undefined ? undefined : parseRunIdFlag(flags.runId);
  const overrides = runOverrides(flags);
  const baseUrl = baseUrlFlag(flags);
  const sandbox = parseSandboxFlags(flags);
  const engine = await import('@delta/engine');
  // --models: the run's agent with the entry --model names laid over it, as `delta run --models` ran it.
  const model = await runModelOf(flags, engineEnvironment());
  const agent = model ? await modelAgent(flags, model.apply) : undefined;
  return withEngineSession(
    flags.interactive === true,
    async (session, endProgress) => {
      const result = await engine.continueRun({
        ...session,
        ...baseUrl,
        ...model?.engine,
        ...(agent === undefined ? { overrides } : { agent }),
        sandbox,
        workDir: flags.workDir!,
        ...(runId === undefined ? {} : { runId }),
        ...(flags.message === undefined ? {} : { message: String(flags.message) }),
        ...(maxIterations === undefined ? {} : { maxIterations }),
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...limits,
        strict: flags.strict === true,
        onWarning: printConfigWarning,
      });
      endProgress();
      return reportOutcome(result, flags.verbose === true, { json: flags.json === true, format });
    },
    flags,
  );
}

/** The agent of the run to continue (its metadata.json's agent_home), loaded with --set and the entry applied. */
async function modelAgent(flags: ContinueFlags, apply: (agent: LoadedAgent) => LoadedAgent): Promise<LoadedAgent> {
  const { readLatestRunId, readMetadata, runPaths } = await import('@delta/journal');
  const { loadAgent } = await import('@delta/engine');
  const workDir = flags.workDir!;
  const runId = flags.runId === undefined ? readLatestRunId(workDir) : String(flags.runId);
  const metadata = runId === undefined ? undefined : runPaths(workDir, runId).metadata;
  if (metadata === undefined || !existsSync(metadata)) {
    throw usageError(`No existing run found in the work directory ${workDir}.`, 'Use `delta run` to start a new run.');
  }
  const agent = loadAgent(readMetadata(metadata).agent_home, { strict: flags.strict === true, overrides: runOverrides(flags) });
  for (const warning of agent.warnings) printConfigWarning(warning);
  return apply(agent);
}
