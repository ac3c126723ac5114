import type { AgentVersions } from '@delta/engine';
import { batchControlDirectory } from './batch-layout.js';
import { keptAgentHome } from './agent-versions.js';
import { batchOfRunDirectory, batchRunStartState } from './task-start-state.js';

/** What a replay or a fork of one run of a batch starts from, and where it goes. */
export interface BatchRunOrigin {
  /** The batch directory. */
  out: string;
  /** Where a replay or fork goes without `--into`: `OUT/.batch`, under which `replays/R00N` and `forks/F00N` are made. */
  originBase: string;
  /** Fills a new workspace with the start state the task's runs had. */
  prepareWorkspace: (into: string) => void;
  /** The batch's kept copies of the agent's versions, by fingerprint. */
  agentVersions: AgentVersions;
}

/**
 * When `workDir` is a run directory of a batch (`OUT/<task>/<model>/<k>`): where a replay or a fork of that
 * run goes, what its workspace starts from, and the agent versions the batch kept (engine's `replayRun` and
 * `forkRun` take each); undefined for any other workspace.
 */
export function batchRunOrigin(workDir: string): BatchRunOrigin | undefined {
  const batch = batchOfRunDirectory(workDir);
  const prepareWorkspace = batchRunStartState(workDir);
  if (batch === undefined || prepareWorkspace === undefined) return undefined;
  const { out } = batch;
  return {
    out,
    originBase: batchControlDirectory(out),
    prepareWorkspace,
    agentVersions: (fingerprint) => keptAgentHome(out, fingerprint),
  };
}
