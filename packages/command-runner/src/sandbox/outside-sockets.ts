import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import type { SandboxPolicy } from './sandbox-policy.js';

/**
 * Unix sockets of this machine that a sandbox with the network off must not reach. A network namespace
 * of its own (`--unshare-net`) closes the abstract ones (`@name`), but not a socket file the sandbox can
 * see in its view of the file system: connecting to it reaches whoever listens outside (a redis-server,
 * a docker daemon, a session bus). So with the network off, /run (and /var/run when it is a directory of
 * its own) is an empty tmpfs in there, and every other path socket this machine lists in /proc/net/unix
 * that the sandbox would see is covered by /dev/null (see bubblewrapSandboxArgs).
 *
 * What this cannot cover (docs/configuration.md says so): a socket bound after the sandbox started, one
 * listed under a relative path or by a process in another network namespace, and a socket reached under
 * another name (a hard link to it, a directory bind-mounted elsewhere). Sockets the tools create in there
 * are theirs to use (a session's, under the workspace's .sessions/): they are not on this machine's list.
 */

/** Directories under which the sandbox sees nothing of this machine's (its own mounts cover them). */
export function hiddenDirectories(network: boolean, varRunIsDirectory: boolean): string[] {
  const hidden = ['/tmp', '/dev', '/proc'];
  if (!network) hidden.push('/run', ...(varRunIsDirectory ? ['/var/run'] : []));
  return hidden;
}

/** Whether /var/run is a directory of its own (not the usual link to /run), which then needs a tmpfs too. */
export function varRunIsDirectory(): boolean {
  try {
    return lstatSync('/var/run').isDirectory();
  } catch {
    return false;
  }
}

/** The absolute socket paths in the text of /proc/net/unix (abstract and unnamed sockets left out). */
export function listedSocketPaths(listing: string): string[] {
  const paths = new Set<string>();
  // Num: RefCount Protocol Flags Type St Inode Path
  for (const line of listing.split('\n').slice(1)) {
    const path = /^\s*[0-9a-fA-F]+:(?:\s+\S+){6} (.+)$/.exec(line)?.[1];
    if (path?.startsWith('/')) paths.add(path);
  }
  return [...paths];
}

function isUnder(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith('/') ? directory : `${directory}/`);
}

/**
 * Which of `sockets` (real paths) the sandbox would see, and so must cover: those under a path it binds
 * (the workspace, the visible and protected paths), and those outside the directories it hides. A socket
 * under a writable path stays reachable: listing it (or its directory) in `writable_paths` is how a user
 * lets the tools reach it on purpose.
 */
export function socketsToMask(sockets: readonly string[], policy: SandboxPolicy, hidden: readonly string[]): string[] {
  const bound = [policy.workspace, ...policy.visiblePaths, ...policy.protectedPaths];
  return sockets.filter((socket) => {
    if (policy.writablePaths.some((path) => isUnder(socket, path))) return false;
    if (bound.some((path) => isUnder(socket, path))) return true;
    // Under an image, nothing of this machine's is there but what is bound.
    return !policy.image && !hidden.some((path) => isUnder(socket, path));
  });
}

/** The real path of `path` if it is a socket now, else undefined (gone, or not reachable from here either). */
function realSocket(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    // bigint: a plain lstat of a socket leaves Node 20's shared stat buffer so that its module resolver
    // misreads the next lazy import (apps/delta-cli/src/workspace-special-files.e2e.test.ts).
    return lstatSync(real, { bigint: true }).isSocket() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The socket files of this machine that a sandbox with the network off, started now with `policy`, must
 * cover. Empty with the network on: the tools have the machine's network then, and its sockets with it.
 */
export function outsideSockets(policy: SandboxPolicy, listingFile = '/proc/net/unix'): string[] {
  if (policy.network) return [];
  let listing: string;
  try {
    listing = readFileSync(listingFile, 'utf8');
  } catch {
    return [];
  }
  const real = new Set<string>();
  for (const path of listedSocketPaths(listing)) {
    const found = realSocket(path);
    if (found !== undefined) real.add(found);
  }
  return socketsToMask([...real], policy, hiddenDirectories(false, varRunIsDirectory()));
}
