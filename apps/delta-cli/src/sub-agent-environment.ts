import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Tools that start sub-agents (`delta run --agent ... -w ./job`) find this same `delta` first on PATH,
 * even when it is not on the user's PATH: the directory of our launchers (`delta`, `delta.js`) goes in
 * front. The directory of the running node goes last, so `#!/usr/bin/env node` works for the launcher
 * even when node was started by its full path; a node already on PATH still wins.
 */
export function subAgentEnvironment(
  environment: NodeJS.ProcessEnv = process.env,
  nodeExecutable: string = process.execPath,
): Record<string, string> {
  const binDirectory = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin');
  const userPath = (environment.PATH ?? '').split(delimiter).filter((entry) => entry !== '');
  const nodeDirectory = dirname(nodeExecutable);
  const path = [binDirectory, ...userPath, ...(userPath.includes(nodeDirectory) ? [] : [nodeDirectory])];
  return {
    PATH: path.join(delimiter),
    DELTA_CLI: join(binDirectory, 'delta.js'),
  };
}
