import type { AgentFingerprint } from '@delta/journal';
import { agentFingerprint } from './agent-fingerprint.js';
import type { ConfigOverrides } from './config-overrides.js';
import { compareFingerprints } from './fingerprint-changes.js';
import { loadAgent, type LoadedAgent } from './load-agent.js';
import { recordedAgentHome, type RecordedRun } from './recorded-run.js';

/** Where a kept copy of a version of an agent is, by its fingerprint (a batch keeps one per version it ran). */
export type AgentVersions = (fingerprint: AgentFingerprint) => string | undefined;

export interface RecordedAgentOptions {
  /** The agent directory to use as it is (`--agent`): no kept version replaces it. */
  agentHome?: string | undefined;
  agentVersions?: AgentVersions | undefined;
  overrides: ConfigOverrides;
}

/**
 * The agent a replay or a fork of `source` runs: the directory given, else the recorded run's agent
 * directory when it still holds the version the run started with, else the kept copy of that version
 * (`agentVersions`), else the recorded directory as it is now. `kept` says whether the copy was taken.
 */
export function loadRecordedAgent(source: RecordedRun, options: RecordedAgentOptions): { agent: LoadedAgent; kept: boolean } {
  const load = (home: string) => loadAgent(home, { overrides: options.overrides });
  if (options.agentHome !== undefined) return { agent: load(options.agentHome), kept: false };
  const recorded = source.start?.agent_fingerprint;
  const copy = recorded === undefined ? undefined : options.agentVersions?.(recorded);
  if (copy === undefined) return { agent: load(recordedAgentHome(source)), kept: false };
  try {
    const current = load(recordedAgentHome(source));
    if (compareFingerprints(recorded!, agentFingerprint(current)).same) return { agent: current, kept: false };
  } catch {
    // Moved, removed or broken since: the kept copy is the version the run used.
  }
  return { agent: load(copy), kept: true };
}
