import type { HookName } from './hook-names.js';

/** At most this many bytes of TOOL_RESULT go into the environment; the whole result is in `input/tool_result.json`. */
export const TOOL_RESULT_ENV_LIMIT = 64 * 1024;

/** Facts about the run every hook is told. */
export interface HookRunFacts {
  runId: string;
  /** The run's directory, `.delta/<run_id>/`. */
  runDir: string;
  journalPath: string;
  iterationCount: number;
}

/** Values only some hooks get: TOOL_NAME (tool hooks), TOOL_RESULT (post_tool_execution), ERROR_MESSAGE (on_error). */
export interface HookValues {
  toolName?: string;
  toolResult?: string;
  errorMessage?: string;
}

/**
 * The hook's whole environment: the base the engine passes (already without model credentials), then the
 * hook protocol's variables, which win over anything of the same name in the base.
 */
export function hookEnvironment(options: {
  base: Record<string, string>;
  name: HookName;
  ioPath: string;
  run: HookRunFacts;
  values: HookValues;
}): Record<string, string> {
  const { run, values } = options;
  const environment: Record<string, string> = {
    ...options.base,
    DELTA_RUN_ID: run.runId,
    DELTA_HOOK_IO_PATH: options.ioPath,
    DELTA_HOOK_NAME: options.name,
    RUN_DIR: run.runDir,
    JOURNAL_PATH: run.journalPath,
    ITERATION_COUNT: String(run.iterationCount),
  };
  if (values.toolName !== undefined) environment.TOOL_NAME = values.toolName;
  if (values.toolResult !== undefined) {
    const capped = capBytes(values.toolResult, TOOL_RESULT_ENV_LIMIT);
    environment.TOOL_RESULT = capped;
    environment.TOOL_RESULT_TRUNCATED = capped.length < values.toolResult.length ? 'true' : 'false';
  }
  if (values.errorMessage !== undefined) environment.ERROR_MESSAGE = values.errorMessage;
  // A NUL byte cannot be passed in an environment variable and would stop the hook from starting.
  for (const [key, value] of Object.entries(environment)) {
    if (value.includes('\0')) environment[key] = value.replaceAll('\0', '');
  }
  return environment;
}

/** The longest prefix of `text` that fits in `limit` UTF-8 bytes, never cutting a character in half. */
function capBytes(text: string, limit: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
