import { baseUrlFlag } from './override-flags.js';
import { parseOutputFormat } from './result/output-format.js';
import { parseRunIdFlag } from './run-id-flag.js';
import { type RunLimitFlags, runLimitOptions } from '@delta/engine';
import type { ModelsFlags } from './run-models.js';
import { parseSandboxFlags } from './sandbox-flags.js';

/** The flags `delta run` and `delta continue` share. */
export interface RunFlags extends ModelsFlags, RunLimitFlags {
  message?: string;
  workDir?: string;
  runId?: string;
  verbose?: boolean;
  interactive?: boolean;
  quiet?: boolean;
  json?: boolean;
  strict?: boolean;
  format?: string;
  sandbox?: string;
  network?: boolean;
  image?: string;
  workdir?: string;
}

/** What run and continue check before they load anything: the limits, --format, --run-id, the sandbox and --base-url. */
export function parseRunFlags(flags: RunFlags) {
  const limits = runLimitOptions(flags);
  const format = parseOutputFormat(flags);
  const runId = flags.runId === undefined ? undefined : parseRunIdFlag(flags.runId);
  const sandbox = parseSandboxFlags(flags);
  return { format, runId, engine: { ...limits, sandbox, ...baseUrlFlag(flags) } };
}
