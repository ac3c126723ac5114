import { realpathSync } from 'node:fs';
import { relative, isAbsolute, sep } from 'node:path';
import { findProjectRoot } from './project-root.js';

/** Where imports may come from (spec README resolution 12). Both paths are real (symlinks resolved). */
export interface ImportBoundary {
  /** The agent directory, or the root of the git repository that holds it. */
  root: string;
  /** How to name the boundary in messages. */
  description: string;
}

/** The agent directory, widened to its git repository's root when the agent sits inside one. */
export function importBoundary(agentHome: string): ImportBoundary {
  const repository = findProjectRoot(agentHome);
  if (repository === undefined) {
    return { root: agentHome, description: `the agent directory ${agentHome} (the agent is not inside a git repository)` };
  }
  const root = realpathSync(repository);
  return { root, description: `the git repository ${root} that holds the agent` };
}

/** True when `realPath` (symlinks already resolved) is the boundary's root or below it. */
export function isInsideBoundary(realPath: string, boundary: ImportBoundary): boolean {
  const path = relative(boundary.root, realPath);
  return path === '' || (!isAbsolute(path) && path !== '..' && !path.startsWith(`..${sep}`));
}
