import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ConfigurationError } from '@delta/errors';

/**
 * Where a worker serves batches from: only under the storage roots its operator named (`delta worker --root`),
 * never in a place a sandboxed tool can write. A tool can write its run's workspace and private /tmp (whose
 * path on this machine it can learn: /proc/self/mountinfo shows it), and from there it could make a whole
 * batch, agent, hooks and signing key included: run by a worker, its hooks and generators would run outside
 * every sandbox. So a batch directory is refused, before anything in it is read, when it is outside every
 * root, reached through a symbolic link, inside a run sandbox's private directory, or inside a run's
 * workspace (a directory with a `.delta/` above it).
 */

/** The roots as this machine sees them (real paths), each an existing directory; an error names the bad one. */
export function storageRoots(roots: readonly string[]): string[] {
  if (roots.length === 0) {
    throw new ConfigurationError('A worker serves batches only under the storage roots it is given, and none was given.', {
      code: 'USAGE',
      field: '--root',
      hint: 'Name the shared directory the batches are in: delta worker --queue URL --root /shared/results (repeatable).',
    });
  }
  return roots.map((root) => {
    const absolute = resolve(root);
    let real: string;
    try {
      real = realpathSync(absolute);
    } catch {
      throw new ConfigurationError(`--root ${absolute} does not exist on this machine.`, {
        code: 'USAGE',
        field: '--root',
        hint: 'Give the directory the shared storage holding the batches is mounted at.',
      });
    }
    if (!lstatSync(real).isDirectory()) {
      throw new ConfigurationError(`--root ${absolute} is not a directory.`, { code: 'USAGE', field: '--root', hint: 'Give a directory.' });
    }
    return real;
  });
}

function isWithin(path: string, outer: string): boolean {
  const rest = relative(outer, path);
  return rest === '' || (!rest.startsWith(`..${sep}`) && rest !== '..' && !isAbsolute(rest));
}

/** A directory name of a run sandbox's private directories (see @delta/command-runner's sandbox-tmp.ts). */
const SANDBOX_DIRECTORY = /^(delta-sandbox-tmp-|delta-sandboxes-\d+$)/;

/** Why the batch at `out` is not this worker's to serve, or undefined when it may be (see the module comment). */
export function storageMismatch(out: string, roots: readonly string[]): string | undefined {
  const absolute = resolve(out);
  let real: string;
  try {
    real = realpathSync(absolute);
  } catch {
    // Not here at all: the checks that follow say so (BATCH_NOT_SHARED), without reading anything of it.
    return roots.some((root) => isWithin(absolute, root)) ? undefined : outside(absolute, roots);
  }
  if (real !== absolute) return `its out ${absolute} goes through a symbolic link (it is ${real})`;
  if (!roots.some((root) => isWithin(real, root))) return outside(real, roots);
  const sandboxPart = real.split(sep).find((part) => SANDBOX_DIRECTORY.test(part));
  if (sandboxPart !== undefined)
    return `its out ${real} lies in a run sandbox's private directory (${sandboxPart}), where that run's tools write`;
  for (let directory = dirname(real); directory !== dirname(directory); directory = dirname(directory)) {
    if (existsSync(join(directory, '.delta')))
      return `its out ${real} lies inside the workspace ${directory} of a run, where that run's tools write`;
  }
  return undefined;
}

function outside(path: string, roots: readonly string[]): string {
  return `its out ${path} lies outside this worker's storage roots (${roots.join(', ')}; delta worker --root)`;
}
