import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';

/** Output files larger than this are not read (the hook's full output stays on disk for audit). */
export const OUTPUT_FILE_LIMIT = 16 * 1024 * 1024;

export type OutputFile<T> = { found: false } | { found: true; value: T } | { found: true; problem: string };

/** Reads a text file the hook wrote to `output/`, if it wrote one. */
export function readOutputText(file: string): OutputFile<string> {
  if (!existsSync(file)) return { found: false };
  const size = statSync(file).size;
  if (size > OUTPUT_FILE_LIMIT) {
    return {
      found: true,
      problem: `output/${basename(file)} is ${size} bytes, more than the ${OUTPUT_FILE_LIMIT} bytes a hook output may have`,
    };
  }
  return { found: true, value: readFileSync(file, 'utf8') };
}

/** Every JSON file a hook wrote goes through here, so a bad one is always named with the parser's reason. */
export function readOutputJson(file: string): OutputFile<unknown> {
  const text = readOutputText(file);
  if (!text.found || !('value' in text)) return text;
  try {
    return { found: true, value: JSON.parse(text.value) as unknown };
  } catch (error) {
    return { found: true, problem: `output/${basename(file)} is not valid JSON: ${(error as Error).message}` };
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
