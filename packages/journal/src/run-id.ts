import { randomBytes } from 'node:crypto';

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit: never a path, never hidden, never `..`. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const MAX_RUN_ID_LENGTH = 100;

/**
 * Names under `.delta/` that are not runs: the engine's own files, and the directories spec 000 has
 * context generators write to. Compared without case, so a workspace moved to macOS keeps them apart.
 */
const RESERVED = ['LATEST', 'VERSION', 'tmp', 'context_artifacts'];

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A run id `YYYYMMDD_HHmmss_xxxxxx` (UTC time, six lowercase letters or digits). */
export function createRunId(now: Date = new Date()): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const stamp =
    `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}_` +
    `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
  const bytes = randomBytes(6);
  let suffix = '';
  for (const byte of bytes) suffix += ALPHABET[byte % ALPHABET.length];
  return `${stamp}_${suffix}`;
}

/**
 * What is wrong with a run id, or undefined when it is a good one. Generated ids and ids a caller chooses
 * (`delta run --run-id`) follow the same rule, because a run id names a directory directly under `.delta/`.
 */
export function runIdProblem(value: string): string | undefined {
  if (value === '') return 'it is empty';
  if (value.length > MAX_RUN_ID_LENGTH) return `it is ${value.length} characters long; the most is ${MAX_RUN_ID_LENGTH}`;
  if (!RUN_ID.test(value)) return 'it may hold only letters, digits, ".", "_" and "-", and must start with a letter or a digit';
  const reserved = RESERVED.find((name) => name.toLowerCase() === value.toLowerCase());
  if (reserved !== undefined) return `"${reserved}" is reserved: .delta/${reserved} is not a run`;
  return undefined;
}

export function isRunId(value: string): boolean {
  return runIdProblem(value) === undefined;
}
