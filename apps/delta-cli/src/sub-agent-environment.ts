import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Tools that start sub-agents (`delta run --agent ... -w ./job`) find this same `delta` first on PATH,
 * even when it is not on the user's PATH: the directory of our `delta` launcher goes in front.
 */
export function subAgentEnvironment(): Record<string, string> {
  const binDirectory = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin');
  return {
    PATH: `${binDirectory}:${process.env.PATH ?? ''}`,
    DELTA_CLI: join(binDirectory, 'delta.js'),
  };
}
