import { printConfigWarning } from './config-warnings.js';
import { baseUrlFlag, configOverrides, type OverrideFlags } from './override-flags.js';
import { parseMaxIterations, parseRetries } from './run-command.js';
import { usageError } from './usage-error.js';
import { runLimitOptions } from './run-limit-flags.js';
import { parseSandboxFlags } from './sandbox-flags.js';
import { withEngineSession } from './engine-session.js';
import { reportOutcome } from './report-outcome.js';
import { parseOutputFormat } from './result/output-format.js';
import { parseRunIdFlag } from './run-id-flag.js';

export interface ContinueFlags extends OverrideFlags {
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
  const overrides = configOverrides(flags);
  const baseUrl = baseUrlFlag(flags);
  const sandbox = parseSandboxFlags(flags);
  const engine = await import('@delta/engine');
  return withEngineSession(
    flags.interactive === true,
    async (session, endProgress) => {
      const result = await engine.continueRun({
        ...session,
        ...baseUrl,
        overrides,
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
