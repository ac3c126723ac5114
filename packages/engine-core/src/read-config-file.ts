import { ConfigurationError, DeltaError } from '@delta/errors';
import { parseYamlConfig, readConfigText, type ParsedConfig, type ParseYamlConfigOptions } from '@delta/yaml-config';
import type { z } from 'zod';

function describeReadFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${error instanceof Error ? error.message : String(error)})`;
}

/**
 * Reads a YAML configuration file of the agent. Whatever is wrong with it (missing, a directory,
 * unreadable, not YAML, not the schema) ends in a ConfigurationError naming the file; never a raw error.
 */
export function readConfigFile<S extends z.ZodType>(
  file: string,
  schema: S,
  options: ParseYamlConfigOptions & { missingHint: string },
): ParsedConfig<z.output<S>> {
  let text: string;
  try {
    text = readConfigText(file);
  } catch (error) {
    if (DeltaError.isInstance(error)) throw error;
    throw new ConfigurationError(`${file} ${describeReadFailure(error)}`, {
      code: 'CONFIG_MISSING',
      file,
      hint: options.missingHint,
      cause: error,
    });
  }
  try {
    return parseYamlConfig(text, file, schema, options);
  } catch (error) {
    if (DeltaError.isInstance(error)) throw error;
    // The YAML library can still throw on pathological input (e.g. alias bombs); say so plainly.
    throw new ConfigurationError(`${file} could not be read as YAML: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'CONFIG_INVALID',
      file,
      hint: 'Fix the YAML syntax (indentation, quotes, colons); the file must be UTF-8 text.',
      cause: error,
    });
  }
}
