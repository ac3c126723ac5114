import { loadAgent, type LoadedAgent } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';
import type { ConfigProblem } from '@delta/yaml-config';

export interface LoadBatchAgentOptions {
  /** A model over agent.yaml's `llm.model` (`--model`). */
  model?: string;
  /** `KEY=VALUE` overrides of agent.yaml (`--set`). */
  set?: readonly string[];
  strict?: boolean;
  onWarning?: (warning: ConfigProblem) => void;
}

/** Loads the batch's agent once per model, with the batch's overrides applied as `delta run` applies them. */
export function loadBatchAgent(home: string, options: LoadBatchAgentOptions = {}): LoadedAgent {
  if (options.model !== undefined || (options.set?.length ?? 0) > 0) {
    throw new ConfigurationError('--model and --set need the engine overrides, which this build does not have.', {
      code: 'USAGE',
      hint: 'Run the batch without --model and --set.',
    });
  }
  const agent = loadAgent(home, { strict: options.strict === true });
  for (const warning of agent.warnings) options.onWarning?.(warning);
  return agent;
}
