import { existsSync, readFileSync } from 'node:fs';

/**
 * Parses a `.env` file: `KEY=value` lines, optional `export `, `#` comments, single- or double-quoted
 * values (double quotes understand \n, \t, \" and \\).
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

export function readDotenv(file: string): Record<string, string> | undefined {
  return existsSync(file) ? parseDotenv(readFileSync(file, 'utf8')) : undefined;
}
