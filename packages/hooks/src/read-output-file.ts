import { basename, dirname } from 'node:path';
import { MAX_JSON_DEPTH, nestsDeeperThan, type SafeParseSchema, safeParseJson } from '@delta/errors';
import { readUntrustedFile } from '@delta/untrusted-file';

/** Output files larger than this are not read (the hook's full output stays on disk for audit). */
export const OUTPUT_FILE_LIMIT = 16 * 1024 * 1024;

export type OutputFile<T> = { found: false } | { found: true; value: T } | { found: true; problem: string };

/**
 * Reads a text file the hook wrote to `output/`, if it wrote one, as hostile input (a FIFO or a link to
 * /dev/zero there would hang or exhaust the engine): a regular file only, at most OUTPUT_FILE_LIMIT bytes,
 * opened without blocking, never through a link that leads out of `output/`.
 */
export function readOutputText(file: string): OutputFile<string> {
  const read = readUntrustedFile(file, { allowedRoots: [dirname(file)], maxBytes: OUTPUT_FILE_LIMIT });
  if (read.kind === 'missing') return { found: false };
  if (read.kind === 'refused') return { found: true, problem: `output/${basename(file)} ${read.reason}; it is not read` };
  return { found: true, value: read.bytes.toString('utf8') };
}

/**
 * Every JSON file a hook wrote goes through here: refused when it nests deeper than the engine reads
 * (MAX_JSON_DEPTH, as a model's answer is), else parsed by the one JSON helper and checked against
 * `schema`, so a bad one is always named with the field and the reason.
 */
export function readOutputJson<T>(file: string, schema: SafeParseSchema<T>): OutputFile<T> {
  const text = readOutputText(file);
  if (!text.found || !('value' in text)) return text;
  // Parsed, it would overflow the stack wherever the engine writes it out (the journal, the request).
  if (nestsDeeperThan(text.value, MAX_JSON_DEPTH)) {
    return { found: true, problem: `output/${basename(file)} nests more than ${MAX_JSON_DEPTH} levels deep; it is not read` };
  }
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
