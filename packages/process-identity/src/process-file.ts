import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * `process.json`: which process a record is about, as written by command-runner (and the tool launcher)
 * once a command has started. The start time is what tells the process from a later one that reuses
 * its pid; it is absent where there is no /proc. Lock holders (`engine.lock`) extend this.
 */
export const ProcessFile = z.object({
  pid: z.number().int().positive(),
  start_ticks: z.string().regex(/^\d+$/, 'clock ticks since boot, digits only (field 22 of /proc/<pid>/stat)').optional(),
});
export type ProcessFile = z.infer<typeof ProcessFile>;

/** The problem with a process file's content, as one line naming the field. */
function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(the whole file)'}: ${issue.message}`).join('; ');
}

/**
 * Parses the text of a process file. Returns the problem instead of throwing: a file found half-written
 * (its writer killed between creating and writing it) names no process, and the caller leaves it alone.
 */
export function safeParseProcessFile(text: string): { success: true; data: ProcessFile } | { success: false; problem: string } {
  let value: unknown;
  // Not safeParseJson: this package stands alone (zod only), and a half-written file is a problem to skip, not an error.
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { success: false, problem: `not JSON (${(error as Error).message})` };
  }
  const parsed = ProcessFile.safeParse(value);
  return parsed.success ? { success: true, data: parsed.data } : { success: false, problem: describe(parsed.error) };
}

/** Reads a process file: undefined when it is missing or does not name a process (see safeParseProcessFile). */
export function readProcessFile(file: string): ProcessFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = safeParseProcessFile(text);
  return parsed.success ? parsed.data : undefined;
}
