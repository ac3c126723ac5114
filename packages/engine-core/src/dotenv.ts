import { dirname } from 'node:path';
import { readUntrustedFile } from '@delta/untrusted-file';

/** The largest `.env` read: a real one is a few lines; a larger one is refused, not read. */
export const DOTENV_MAX_BYTES = 1024 * 1024;

/**
 * Parses a `.env` file: `KEY=value` lines, optional `export `, `#` comments, single- or double-quoted
 * values (double quotes understand \n, \t, \" and \\).
 * Not Node's `util.parseEnv`: it ends `"say \"hi\""` at the first inner quote, and a line without `=`
 * swallows the next line into its key (`not a line\nKEY` becomes one name), so a bad line would hide a good one.
 */
export function parseDotenv(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const key = match[1]!;
    let value = match[2]!;
    if (value.startsWith('"') && value.lastIndexOf('"') > 0) {
      value = value
        .slice(1, value.lastIndexOf('"'))
        .replace(/\\(.)/g, (_, character: string) => ({ n: '\n', t: '\t', r: '\r' })[character] ?? character);
    } else if (value.startsWith("'") && value.lastIndexOf("'") > 0) {
      value = value.slice(1, value.lastIndexOf("'"));
    } else {
      value = value.replace(/\s+#.*$/, '').trim();
    }
    values[key] = value;
  }
  return values;
}

export interface ReadDotenvOptions {
  /** The directories a link may lead into; by default the file's own directory. */
  allowedRoots?: readonly string[];
  /** Told when the file is not read (a FIFO, a device, a link out of those directories, too large), naming it and why. */
  onRefused?: (message: string) => void;
}

/**
 * Reads a `.env` file as hostile input (a tool can write the workspace's): a regular file only, never
 * through a link out of the allowed directories, at most DOTENV_MAX_BYTES, never blocking. A file that
 * is missing or refused gives undefined; a refusal is told to `onRefused`.
 */
export function readDotenv(file: string, options: ReadDotenvOptions = {}): Record<string, string> | undefined {
  const read = readUntrustedFile(file, { allowedRoots: options.allowedRoots ?? [dirname(file)], maxBytes: DOTENV_MAX_BYTES });
  if (read.kind === 'file') return parseDotenv(read.bytes.toString('utf8'));
  if (read.kind === 'refused') options.onRefused?.(`${read.message}; it is not read.`);
  return undefined;
}
