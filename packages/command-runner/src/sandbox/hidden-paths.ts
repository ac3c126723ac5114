import { lstatSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { SandboxPolicy } from './sandbox-policy.js';

/** The directory the sandbox replaces with the run's own: what a tool sees there is not what this machine has. */
const PRIVATE_TMP = '/tmp';

/** Absolute paths under /tmp named in a command's words: a word itself, or after `=`, `:`, a quote or a space in it. */
function tmpPathsIn(words: readonly string[]): string[] {
  const found = new Set<string>();
  for (const word of words) {
    for (const match of word.matchAll(/(?:^|[\s='"(:,])(\/tmp\/[^\s'"`;|&()<>,]+)/g)) found.add(match[1]!.replace(/\/+$/, ''));
  }
  return [...found];
}

const isInside = (path: string, directory: string) => {
  const rest = relative(directory, path);
  return rest === '' || (!rest.startsWith('..') && !isAbsolute(rest));
};

function exists(path: string): boolean {
  try {
    // bigint: a FIFO there must not corrupt Node 20's shared stat buffer.
    lstatSync(path, { bigint: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * The paths a command names under /tmp that exist on this machine but that its tools cannot see: the
 * sandbox gives them a private /tmp, where only the workspace, `writable_paths` and the agent's directory
 * are bound through. Said to the model when such a command fails (a sub-agent kept under /tmp, a script
 * written there by another program), with the fix.
 */
export function pathsHiddenBySandbox(policy: SandboxPolicy, words: readonly string[]): string[] {
  const through = [policy.workspace, ...policy.writablePaths, ...policy.visiblePaths];
  return tmpPathsIn(words).filter(
    (path) => isInside(path, PRIVATE_TMP) && !through.some((directory) => isInside(path, directory)) && exists(path),
  );
}

/** The note added to a failed tool call's observation when it named such paths. */
export function hiddenPathsNote(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ') + (paths.length > 3 ? ` and ${paths.length - 3} more` : '');
  const verb = paths.length === 1 ? 'exists' : 'exist';
  return (
    `Note: ${shown} ${verb} on this machine but not inside the sandbox this tool runs in: its /tmp is private to the run. ` +
    "To let tools see it, add it to sandbox.writable_paths in agent.yaml, or move it under the workspace (or the agent's directory); --sandbox off runs tools without the sandbox."
  );
}
