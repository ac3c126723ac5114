import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { controlDirectory, findRunPaths, isRunId, listRunIds, readLatestRunId, type RunPaths } from '@delta/journal';
import { usageError } from '../usage-error.js';

export interface RunLocation {
  /** The workspace directory (`-w`, or the current directory). */
  workDir?: string;
  /** The run (`--run-id`, or the latest in `.delta/LATEST`). */
  runId?: string;
}

/** Finds the run the inspection commands read, or says how to name one. */
export function locateRun(location: RunLocation): RunPaths {
  const workDir = resolve(location.workDir ?? '.');
  if (!existsSync(controlDirectory(workDir))) {
    throw usageError(
      `${workDir} holds no runs (there is no .delta/ directory).`,
      'Name the workspace with -w, e.g. -w my-agent/workspaces/W001; `delta list --agent my-agent` shows them all.',
    );
  }
  const runId = location.runId === undefined ? (readLatestRunId(workDir) ?? listRunIds(workDir).at(-1)) : String(location.runId);
  if (runId === undefined) {
    throw usageError(`${workDir} holds no runs yet.`, 'Start one with `delta run`.');
  }
  const paths = findRunPaths(workDir, runId);
  if (!isRunId(runId) || !existsSync(paths.runDir)) {
    const known = listRunIds(workDir).slice(-5).reverse().join(', ');
    throw usageError(
      `There is no run "${runId}" in ${workDir}.`,
      known === '' ? 'The workspace has no runs.' : `Recent runs: ${known} (see \`delta list -w ${workDir}\`).`,
    );
  }
  return paths;
}
