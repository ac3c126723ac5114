import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { type SafeParseSchema, safeParseJson } from '@delta/errors';

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
