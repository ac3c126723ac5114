import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  findRunPaths,
  listOriginWorkspaces,
  listRunIds,
  listWorkspaces,
  originDirectory,
  readMetadata,
  readOtherWorkspaces,
  workspacesDirectory,
  type RunMetadata,
} from '@delta/journal';

/** A run as `delta list` shows it: its metadata.json, or why that could not be read. */
export interface ListedRun {
  runId: string;
  /** When the run started: metadata.json's created_at, else (a run being created) its directory's time. */
  startedAt: string;
  workDir: string;
  workspace: string;
  metadata?: RunMetadata;
  problem?: string;
}

/** The runs of one workspace, `workspace` being the name the WORKSPACE column shows. */
export function workspaceRuns(workDir: string, workspace = '.'): ListedRun[] {
  return listRunIds(workDir).map((runId) => {
    const paths = findRunPaths(workDir, runId);
    try {
      const metadata = readMetadata(paths.metadata);
      return { runId, startedAt: metadata.created_at, workDir, workspace, metadata };
    } catch (error) {
      const startedAt = statSync(paths.runDir, { throwIfNoEntry: false })?.mtime.toISOString() ?? '';
      return { runId, startedAt, workDir, workspace, problem: error instanceof Error ? error.message : String(error) };
    }
  });
}

/**
 * The runs of every workspace of an agent: its workspaces/, the replays and forks made in their own places
 * (<agent>/replays/R001, <agent>/forks/F001), and the workspaces given with -w (OTHER_WORKSPACES), named
 * relative to `cwd`.
 */
export function agentRuns(agentHome: string, cwd: string): ListedRun[] {
  const own = listWorkspaces(agentHome).flatMap((name) => workspaceRuns(join(workspacesDirectory(agentHome), name), name));
  const made = (['replay', 'fork'] as const).flatMap((kind) =>
    listOriginWorkspaces(agentHome, kind).flatMap((name) =>
      workspaceRuns(join(originDirectory(agentHome, kind), name), relative(agentHome, join(originDirectory(agentHome, kind), name))),
    ),
  );
  // Another agent may have run in a workspace given with -w too; only this agent's runs are its own (a run
  // whose metadata cannot be read is shown, to be looked at).
  const others = readOtherWorkspaces(agentHome)
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => workspaceRuns(dir, relative(cwd, dir) || '.'))
    .filter((run) => run.metadata === undefined || resolve(run.metadata.agent_home) === agentHome);
  return [...own, ...made, ...others];
}
