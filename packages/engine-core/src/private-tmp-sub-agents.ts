import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** How far, and through how many directories, the search looks: a tool's /tmp is small, but it is the tool's. */
const MAX_DEPTH = 5;
const MAX_DIRECTORIES = 2000;
/** Directories that hold no workspace worth the time. */
const SKIPPED = new Set(['.delta', '.git', 'node_modules', '.delta-io']);

/**
 * The workspaces, as the tools see them (`/tmp/job`), of delta runs (sub-agents) whose journal was written
 * since `since` (ms since the epoch) in the sandbox's private /tmp, `tmpDir` on this machine. That /tmp is
 * removed when the run ends, and nobody outside the sandbox can see it, so such a sub-agent's work is lost.
 * The parent's workspace, its writable paths and the agent are bound in from elsewhere: on this machine
 * their mount points under `tmpDir` are empty, so they are never found here. Links are not followed.
 */
export function subAgentWorkspacesInPrivateTmp(tmpDir: string, since: number): string[] {
  const found: string[] = [];
  let budget = MAX_DIRECTORIES;
  const visit = (directory: string, inside: string, depth: number): void => {
    if (budget-- <= 0) return;
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((entry) => entry.isDirectory() && entry.name === '.delta') && ranSince(join(directory, '.delta'), since)) {
      found.push(inside);
    }
    if (depth >= MAX_DEPTH) return;
    for (const entry of entries) {
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) visit(join(directory, entry.name), `${inside}/${entry.name}`, depth + 1);
    }
  };
  visit(tmpDir, '/tmp', 0);
  return found;
}

/** Whether a run under this `.delta/` wrote its journal since `since`. */
function ranSince(controlDir: string, since: number): boolean {
  let runs: Dirent[];
  try {
    runs = readdirSync(controlDir, { withFileTypes: true });
  } catch {
    return false;
  }
  return runs.some((run) => {
    if (!run.isDirectory()) return false;
    try {
      return statSync(join(controlDir, run.name, 'journal.jsonl'), { bigint: true }).mtimeMs >= BigInt(Math.floor(since));
    } catch {
      return false;
    }
  });
}

/** The note added to the observation of a call that ran such sub-agents, successful or not. */
export function privateTmpSubAgentNote(workspaces: readonly string[]): string {
  const [first] = workspaces;
  const shown = workspaces.length === 1 ? `workspace, ${first},` : `workspaces, ${workspaces.join(', ')},`;
  const name = first?.slice(first.lastIndexOf('/') + 1) || 'job';
  return (
    `Note: this call ran a sub-agent whose ${shown} ${workspaces.length === 1 ? 'is' : 'are'} in this run's private /tmp: it is deleted when the run ends, ` +
    `and nobody outside this run's sandbox can see it. Tools of this run can still read it until then. ` +
    `To keep it, give the sub-agent a workspace under this one (delta run -w \${CWD}/${name} ...), or under a sandbox.writable_paths entry of agent.yaml.`
  );
}
