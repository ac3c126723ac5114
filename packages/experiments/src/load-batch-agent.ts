import { loadAgent, type LoadedAgent } from '@delta/engine';
import type { ConfigProblem } from '@delta/yaml-config';

export interface LoadBatchAgentOptions {
  /** A model over agent.yaml's `llm.model` (`--model`). */
  model?: string;
  /** `KEY=VALUE` overrides of agent.yaml (`--set`). */
  set?: readonly string[];
  strict?: boolean;
  onWarning?: (warning: ConfigProblem) => void;
}

/**
 * Loads the batch's agent once per model, with the batch's overrides applied by the engine as `delta run
 * --model --set` applies them: checked like agent.yaml itself, with the same messages.
 */
export function loadBatchAgent(home: string, options: LoadBatchAgentOptions = {}): LoadedAgent {
  const set = [...(options.set ?? [])];
  const agent = loadAgent(home, {
    strict: options.strict === true,
    overrides: { ...(options.model === undefined ? {} : { model: options.model }), ...(set.length > 0 ? { set } : {}) },
  });
  for (const warning of agent.warnings) options.onWarning?.(warning);
  return agent;
}
