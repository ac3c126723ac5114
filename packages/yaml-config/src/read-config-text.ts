import { readFileSync, statSync, type Stats } from 'node:fs';
import { ConfigurationError } from '@delta/errors';

/**
 * Configuration files (agent.yaml, imported tool files, hooks.yaml, context.yaml) are capped: a 51 MB
 * agent.yaml once took 9 s and 933 MB to load. Real ones are a few KiB; 1 MiB leaves ample room.
 */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** What a path is when it is not a regular file, in words: `a directory`, `a named pipe (FIFO)`. */
export function describeFileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * The text of a configuration file. A path that is not a regular file (a directory, a FIFO, which would
 * block the read for ever) or a file over {@link MAX_CONFIG_FILE_BYTES} is a ConfigurationError naming it;
 * a missing or unreadable file is the caller's to word (read errors are thrown as they are).
 */
export function readConfigText(file: string): string {
  const stats = statSync(file);
  if (!stats.isFile()) {
    throw new ConfigurationError(`${file} is ${describeFileKind(stats)}, not a configuration file`, {
      code: 'CONFIG_INVALID',
      file,
      hint: 'Point to a YAML file (a regular file, UTF-8 text).',
    });
  }
  if (stats.size > MAX_CONFIG_FILE_BYTES) {
    throw new ConfigurationError(
      `${file} is ${(stats.size / 1024 / 1024).toFixed(1)} MiB; configuration files are capped at ${MAX_CONFIG_FILE_BYTES / 1024 / 1024} MiB`,
      {
        code: 'CONFIG_INVALID',
        file,
        hint: 'Keep large text out of configuration: put it in a file a context source reads (docs/context.md) or a tool reads.',
      },
    );
  }
  return readFileSync(file, 'utf8');
}
