import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type SafeParseSchema, safeParseJson } from '@delta/errors';

/** Output files larger than this are not read (the hook's full output stays on disk for audit). */
export const OUTPUT_FILE_LIMIT = 16 * 1024 * 1024;

export type OutputFile<T> = { found: false } | { found: true; value: T } | { found: true; problem: string };

/**
 * Reads a text file the hook wrote to `output/`, if it wrote one: a regular file only, opened without
 * following a link and without blocking (a FIFO or a link to /dev/zero there would hang or exhaust the engine).
 */
export function readOutputText(file: string): OutputFile<string> {
  if (!existsSync(file) && !isLink(file)) return { found: false };
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { found: false };
    return {
      found: true,
      problem: `output/${basename(file)} is not a regular file the hook wrote (${code === 'ELOOP' ? 'a symbolic link' : code}); it is not read`,
    };
  }
  try {
    // bigint: a FIFO's stat must not corrupt Node 20's shared stat buffer.
    const stats = fstatSync(fd, { bigint: true });
    if (!stats.isFile())
      return { found: true, problem: `output/${basename(file)} is not a regular file (a FIFO, a device or a directory); it is not read` };
    const size = Number(stats.size);
    if (size > OUTPUT_FILE_LIMIT) {
      return {
        found: true,
        problem: `output/${basename(file)} is ${size} bytes, more than the ${OUTPUT_FILE_LIMIT} bytes a hook output may have`,
      };
    }
    return { found: true, value: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file, { bigint: true }).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * Every JSON file a hook wrote goes through here: parsed by the one JSON helper and checked against
 * `schema`, so a bad one is always named with the field and the reason.
 */
export function readOutputJson<T>(file: string, schema: SafeParseSchema<T>): OutputFile<T> {
  const text = readOutputText(file);
  if (!text.found || !('value' in text)) return text;
  // Checked, not rebuilt: the value is the hook's own, as written (a schema's output may reorder keys,
  // and a final_payload.json must be sent byte for byte in the order the hook chose).
  const asWritten: SafeParseSchema<T> = {
    safeParse: (value) => {
      const checked = schema.safeParse(value);
      return checked.success ? { success: true, data: value as T } : checked;
    },
  };
  const parsed = safeParseJson(text.value, `output/${basename(file)}`, { schema: asWritten });
  return parsed.success ? { found: true, value: parsed.data } : { found: true, problem: parsed.error.message };
}
