import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The nearest directory at or above `start` that holds `.git` (a directory, or a file for worktrees and
 * submodules): the project root for `.env` lookup and the import boundary. Undefined outside a repository.
 */
export function findProjectRoot(start: string): string | undefined {
  let current = start;
  for (;;) {
    if (existsSync(join(current, '.git'))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
