import { printConfigWarning } from './config-warnings.js';
import { parseMaxIterations } from './run-command.js';
import { usageError } from './usage-error.js';
import { withEngineSession } from './engine-session.js';
import { reportOutcome } from './report-outcome.js';

export interface ContinueFlags {
  workDir?: string;
  message?: string;
  runId?: string;
  maxIterations?: string | number;
  verbose?: boolean;
  interactive?: boolean;
  quiet?: boolean;
  json?: boolean;
  strict?: boolean;
}

/** `delta continue -w DIR [-m TEXT] [--run-id ID]`: the state table of spec 000 section 2.6.2. */
export async function continueCommand(flags: ContinueFlags): Promise<number> {
  if (flags.workDir === undefined) {
    throw usageError('delta continue needs the workspace: -w/--work-dir is missing.', 'For example: delta continue -w ./workspaces/W001');
  }
  const maxIterations = parseMaxIterations(flags.maxIterations);
  const engine = await import('@delta/engine');
  return withEngineSession(
    flags.interactive === true,
    async (session) => {
      const result = await engine.continueRun({
        ...session,
        workDir: flags.workDir!,
        ...(flags.runId === undefined ? {} : { runId: String(flags.runId) }),
        ...(flags.message === undefined ? {} : { message: String(flags.message) }),
        ...(maxIterations === undefined ? {} : { maxIterations }),
        strict: flags.strict === true,
        onWarning: printConfigWarning,
      });
      return reportOutcome(result, flags.verbose === true, flags);
    },
    flags,
  );
}
