import { withEngineSession } from './engine-session.js';
import { keptVersionLine } from '@delta/views';
import { baseUrlFlag, configOverrides, type OverrideFlags } from './override-flags.js';
import { reportOutcome } from './report-outcome.js';
import { parseOutputFormat } from './result/output-format.js';
import { runLimitOptions } from '@delta/engine';
import { parseRunIdFlag } from './run-id-flag.js';
import { usageError } from './usage-error.js';
import type { RunLocation } from './inspect/locate-run.js';

export interface ForkFlags extends OverrideFlags, RunLocation {
  agent?: string;
  at?: string | number;
  into?: string;
  message?: string;
  maxIterations?: string | number;
  verbose?: boolean;
  interactive?: boolean;
  quiet?: boolean;
  json?: boolean;
  format?: string;
}

function parseAt(value: string | number | undefined): number {
  const number = Number(value);
  if (value === undefined || typeof value === 'boolean' || !Number.isInteger(number) || number < 0) {
    throw usageError(
      value === undefined
        ? 'delta fork needs --at N: the iteration after which the run branches.'
        : `--at must be a whole number of at least 0, got "${value}".`,
      'For example: delta fork -w ws --at 2 -m "Try another way"',
    );
  }
  return number;
}

/** `delta fork`: a new run holding a recorded run's first N iterations (workspace rebuilt by replay), then going on live. */
export async function forkCommand(flags: ForkFlags): Promise<number> {
  const at = parseAt(flags.at);
  const runId = flags.runId === undefined ? undefined : parseRunIdFlag(flags.runId);
  const limits = runLimitOptions({ maxIterations: flags.maxIterations });
  const format = parseOutputFormat(flags);
  const overrides = configOverrides(flags);
  const baseUrl = baseUrlFlag(flags);
  const engine = await import('@delta/engine');
  // A batch run: the agent version it used (kept by the batch), and without --into its task's start state, under OUT.
  const batch = (await import('@delta/experiments')).batchRunOrigin(flags.workDir ?? '.');
  return withEngineSession(
    flags.interactive === true,
    async (session) => {
      const result = await engine.forkRun({
        ...session,
        ...baseUrl,
        source: { workDir: flags.workDir ?? '.', ...(runId === undefined ? {} : { runId }) },
        at,
        overrides,
        ...(flags.agent === undefined ? {} : { agentHome: String(flags.agent) }),
        ...(flags.into === undefined ? {} : { into: String(flags.into) }),
        ...(batch ? { agentVersions: batch.agentVersions } : {}),
        ...(batch && flags.into === undefined ? { originBase: batch.originBase, prepareWorkspace: batch.prepareWorkspace } : {}),
        ...(flags.message === undefined ? {} : { message: String(flags.message) }),
        ...limits,
      });
      process.stderr.write(`Forked run ${result.forkedFrom.run_id} after iteration ${at}: run ${result.runId} in ${result.workDir}\n`);
      if (result.keptAgentHome !== undefined) process.stderr.write(`${keptVersionLine(result.keptAgentHome)}\n`);
      return reportOutcome(result, flags.verbose === true, { json: flags.json === true, format });
    },
    flags,
  );
}
