import { engineEnvironment } from './handed-keys.js';
import { describeModelSettings, resolveModelSettings, type LoadedAgent } from '@delta/engine';

/**
 * For -v: where the API key and base URL come from (never the key), which files were imported and
 * where the hooks came from. A missing key is left for the run to report.
 */
export function reportSettings(agent: LoadedAgent, workDir: string, write: (text: string) => void): void {
  write(`Agent: ${agent.configFile}\n`);
  for (const file of agent.imports) write(`  imports ${file}\n`);
  if (agent.hooksFile !== undefined) write(`  hooks from ${agent.hooksFile}\n`);
  try {
    write(`${describeModelSettings(resolveModelSettings(workDir, agent.home, engineEnvironment()))}\n`);
  } catch {
    // startRun raises the same configuration error, with its fix, in its place.
  }
}
