import { engineEnvironment } from './handed-keys.js';
import { describeModelSettings, type LoadedAgent, type RunModelSettingsOptions, runModelSettings } from '@delta/engine';

/**
 * For -v: where the API key and base URL come from (never the key), which files were imported and
 * where the hooks came from. `given` is what the command hands the engine (--base-url, a models file
 * entry's key, a resumed run's recorded endpoint): the line says what the run uses. A missing key is
 * left for the run to report.
 */
export function reportSettings(
  agent: LoadedAgent,
  workDir: string,
  write: (text: string) => void,
  given: Omit<RunModelSettingsOptions, 'environment' | 'onWarning'> = {},
): void {
  write(`Agent: ${agent.configFile}\n`);
  for (const file of agent.imports) write(`  imports ${file}\n`);
  if (agent.hooksFile !== undefined) write(`  hooks from ${agent.hooksFile}\n`);
  try {
    write(`${describeModelSettings(runModelSettings(workDir, agent.home, { ...given, environment: engineEnvironment() }))}\n`);
  } catch {
    // startRun raises the same configuration error, with its fix, in its place.
  }
}
