// What the load-agent test files share: a configuration error expected from loadAgent, and an agent with imports.
import { expect } from 'vitest';
import { DeltaError } from '@delta/errors';
import { loadAgent } from './load-agent.js';

/** Runs loadAgent expecting a configuration error, and returns it. */
export function configurationError(agentDir: string): DeltaError {
  try {
    loadAgent(agentDir);
  } catch (error) {
    expect(DeltaError.isInstance(error)).toBe(true);
    expect((error as DeltaError).kind).toBe('configuration');
    return error as DeltaError;
  }
  throw new Error('loadAgent did not fail');
}

export const agentWithImports = (imports: string[], tools: unknown[] = []) => ({ name: 'importer', llm: { model: 'm' }, imports, tools });
