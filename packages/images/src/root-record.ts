import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeParseJson } from '@delta/errors';
import { z } from 'zod';

/** `roots/<chain id>/root.json`: what a cached root holds and which images it serves. */
export const RootRecord = z.looseObject({
  chain_id: z.string(),
  diff_ids: z.array(z.string()),
  images: z.array(z.looseObject({ digest: z.string(), reference: z.string() })),
  /** Bytes of file content. */
  bytes: z.number(),
  /** Bytes it takes on disk. */
  allocated_bytes: z.number(),
  entries: z.number(),
  /** Entries not made (device nodes, FIFOs), the first 100. */
  skipped: z.array(z.string()),
  unpacked_at: z.string(),
});
export type RootRecord = z.infer<typeof RootRecord>;

/** The directory of a cached root: `cacheDir/roots/<hex of its chain id>`. */
export function rootDirectory(cacheDir: string, chainId: string): string {
  return join(cacheDir, 'roots', chainId.replace(/^sha256:/, ''));
}

/** The record of the root in `directory`; undefined when there is none (not unpacked, or unpacked only in part). */
export function readRootRecord(directory: string): RootRecord | undefined {
  let text: string;
  try {
    text = readFileSync(join(directory, 'root.json'), 'utf8');
  } catch {
    return undefined;
  }
  const parsed = safeParseJson(text, join(directory, 'root.json'), { schema: RootRecord });
  return parsed.success ? parsed.data : undefined;
}

/** Writes the record whole (a new file renamed over the old). */
export function writeRootRecord(directory: string, record: RootRecord): void {
  const file = join(directory, 'root.json');
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(temporary, file);
}
