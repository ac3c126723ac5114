import { closeSync, readFileSync } from 'node:fs';

/** The variables `bin/delta` hands over on a file descriptor rather than in the environment. */
const HANDED = new Set(['DELTA_API_KEY', 'OPENAI_API_KEY']);

let handed: Record<string, string> | undefined;

/**
 * Reads the model keys `bin/delta` took out of the environment (see bin/delta): `NAME=value` lines on the
 * file descriptor named by DELTA_KEY_FD, read once and closed at start, so that no process started later
 * inherits it. The keys live in this process's memory only: never in its environment, which any process
 * of the same user can read from /proc/<pid>/environ.
 */
export function takeHandedKeys(environment: NodeJS.ProcessEnv = process.env): Record<string, string> {
  if (handed) return handed;
  handed = {};
  const fd = Number(environment.DELTA_KEY_FD);
  delete environment.DELTA_KEY_FD;
  if (!Number.isInteger(fd) || fd < 3) return handed;
  let text = '';
  try {
    text = readFileSync(fd, 'utf8');
  } catch {
    // Nothing was handed over after all (the descriptor is not open).
  }
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
  for (const line of text.split('\n')) {
    const equals = line.indexOf('=');
    const name = line.slice(0, equals);
    if (equals > 0 && HANDED.has(name)) handed[name] = line.slice(equals + 1);
  }
  return handed;
}

/** The environment the engine reads its settings from: this process's, plus the keys handed over. */
export function engineEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env, ...takeHandedKeys() };
}
