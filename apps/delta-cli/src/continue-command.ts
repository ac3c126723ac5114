import { existsSync } from 'node:fs';
import type { LoadedAgent } from '@delta/engine';
import { printConfigWarning } from './config-warnings.js';
import { engineEnvironment } from './handed-keys.js';
import { runModelOf, runOverrides } from './run-models.js';
import { parseRunFlags, type RunFlags } from './run-flags.js';
import { usageError } from './usage-error.js';
import { withEngineSession } from './engine-session.js';
import { reportOutcome } from './report-outcome.js';

/** `delta continue -w DIR [-m TEXT] [--run-id ID]`: the state table of spec 000 section 2.6.2. */
export async function continueCommand(flags: RunFlags): Promise<number> {
  if (flags.workDir === undefined) {
    throw usageError('delta continue needs the workspace: -w/--work-dir is missing.', 'For example: delta continue -w ./workspaces/W001');
  }
  const { format, runId, engine: flagOptions } = parseRunFlags(flags);
  const overrides = runOverrides(flags);
  const engine = await import('@delta/engine');
  // --models: the run's agent with the entry --model names laid over it, as `delta run --models` ran it.
  const model = await runModelOf(flags, engineEnvironment());
  const agent = model ? await modelAgent(flags, model.apply) : undefined;
  return withEngineSession(
    flags.interactive === true,
    async (session, endProgress) => {
      const result = await engine.continueRun({
        ...session,
        ...flagOptions,
        ...model?.engine,
        ...(agent === undefined ? { overrides } : { agent }),
        workDir: flags.workDir!,
        ...(runId === undefined ? {} : { runId }),
        ...(flags.message === undefined ? {} : { message: String(flags.message) }),
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
async function modelAgent(flags: RunFlags, apply: (agent: LoadedAgent) => LoadedAgent): Promise<LoadedAgent> {
  const { findRunPaths, readLatestRunId, readMetadata } = await import('@delta/journal');
  const { loadAgent } = await import('@delta/engine');
  const workDir = flags.workDir!;
  const runId = flags.runId === undefined ? readLatestRunId(workDir) : String(flags.runId);
  const metadata = runId === undefined ? undefined : findRunPaths(workDir, runId).metadata;
  if (metadata === undefined || !existsSync(metadata)) {
    throw usageError(`No existing run found in the work directory ${workDir}.`, 'Use `delta run` to start a new run.');
  }
  const agent = loadAgent(readMetadata(metadata).agent_home, { strict: flags.strict === true, overrides: runOverrides(flags) });
  for (const warning of agent.warnings) printConfigWarning(warning);
  return apply(agent);
}
