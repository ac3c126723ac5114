import { isAbsolute, join, resolve } from 'node:path';
import { SessionError } from './session-error.js';

/** `exec` gives up after this long unless told otherwise (`timeoutMs`, `DELTA_SESSIONS_TIMEOUT_MS`). */
export const DEFAULT_TIMEOUT_MS = 60_000;
/** Each of stdout and stderr is capped at this many bytes (`maxOutputBytes`, `DELTA_SESSIONS_MAX_OUTPUT_BYTES`). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Options every operation accepts. */
export interface SessionsOptions {
  /** Where sessions live. Default: `DELTA_SESSIONS_DIR`, else `<cwd>/.sessions`. */
  sessionsDir?: string;
  /** The directory relative paths are resolved against, and where `.sessions/` goes. Default: `process.cwd()`. */
  cwd?: string;
  /** The environment to read `DELTA_SESSIONS_*` from and to hand to the session. Default: `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export function resolveSessionsDir(options: SessionsOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const chosen = options.sessionsDir ?? (env.DELTA_SESSIONS_DIR || undefined);
  if (chosen === undefined) return join(cwd, '.sessions');
  return isAbsolute(chosen) ? chosen : resolve(cwd, chosen);
}

/** A positive integer from an option, else from an environment variable, else the default. */
export function resolvePositiveInteger(value: number | undefined, env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  if (value !== undefined) return checkPositiveInteger(value, variable);
  const raw = env[variable];
  if (raw === undefined || raw === '') return fallback;
  return checkPositiveInteger(Number(raw), variable);
}

function checkPositiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new SessionError(`${name} must be a positive whole number, found ${String(value)}.`, {
      code: 'INVALID_ARGUMENT',
    });
  }
  return value;
}
