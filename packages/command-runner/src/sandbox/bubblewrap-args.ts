import { dirname, isAbsolute, join, relative as relativePath } from 'node:path';
import { varRunIsDirectory } from './outside-sockets.js';
import { pathInside, SECCOMP_FD, USER_NAMESPACE_FD, type SandboxPolicy } from './sandbox-policy.js';

/**
 * What holds every sandboxed process, whoever started the engine (root included, as in containers and
 * CI): no capability at all (bubblewrap started by root otherwise hands them every one, and a tool could
 * remount / or .delta/ writable), no_new_privs (bubblewrap sets it: no setuid program gains rights), and a
 * session of its own (a tool cannot push keystrokes into the terminal the engine was started from).
 */
// The seccomp filter (sandboxSeccompFilter, read from SECCOMP_FD): no set-user-ID file left behind, no
// process reaching into another.
const NO_PRIVILEGES = ['--cap-drop', 'ALL', '--new-session', '--seccomp', String(SECCOMP_FD)];

/**
 * The bubblewrap arguments of a run's sandbox, before the program it runs (the run's tool launcher, whose
 * every tool call is a plain spawn in there): new user and PID namespaces, so that none of the engine's
 * processes is visible and, when the sandbox ends, the kernel ends every process left in it (nothing a
 * tool started outlives the run); and one mount namespace, shared by every tool call of the run, in
 * which the whole file system is read-only, /tmp is `tmpDir` (the run's own), the visible paths (the
 * agent's directory, the launcher's program) are read-only as they are, also where they lie under the
 * workspace or a writable path, the workspace is writable (`workspace-write`) except the protected
 * paths, and so are the writable paths. The order matters: a later mount covers an earlier one, so the
 * workspace (which may be under /tmp) is bound after /tmp, and the protected paths after the workspace.
 * `infoFd` receives `{"child-pid": N}` (the launcher's pid) once it runs.
 *
 * The launcher is the namespace's first process (`--as-pid-1`: no bubblewrap process in there whose
 * descriptors, the engine's pipes among them, or argv, with this machine's paths, a tool could read; and a
 * process no tool can signal), and starts in /tmp/.delta-io (LAUNCHER_DIR), the directory the engine then
 * moves out of the tools' sight (see RunSandbox). /proc is read-only: no tool writes another process's
 * memory through /proc/<pid>/mem.
 *
 * No tool can create a user namespace in there (`--disable-userns`: bubblewrap runs the tools in a nested
 * one whose limit is 0), so none can gain capabilities again in a namespace of its own. With the network
 * off, /run (and /var/run) is an empty tmpfs and each of `coveredSockets` (this machine's socket files the
 * sandbox would see, see outsideSockets) is covered by /dev/null: unix sockets outside are out of reach.
 */
export function bubblewrapSandboxArgs(
  policy: SandboxPolicy,
  tmpDir: string,
  infoFd: number,
  coveredSockets: readonly string[] = [],
): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    ...NO_PRIVILEGES,
    '--disable-userns',
    '--die-with-parent',
    '--as-pid-1',
    ...(policy.image ? ['--uid', String(policy.image.uid ?? 0), '--gid', String(policy.image.gid ?? 0)] : []),
    '--info-fd',
    String(infoFd),
    ...mountArgs(policy, tmpDir, coveredSockets),
    ...(policy.network ? [] : ['--unshare-net']),
    '--chdir',
    join('/tmp', LAUNCHER_DIR),
    '--',
  ];
}

/** Where, under the sandbox's /tmp, the launcher inside starts: its program, and later each call's files (see RunSandbox). */
export const LAUNCHER_DIR = '.delta-io';

/**
 * Every path inside the sandbox that its bubblewrap mounts something on (all but `/`): under an image,
 * each is checked before bubblewrap starts (see image-root.ts), since bubblewrap follows a link on the
 * way to one, and the image and the run's layer are hostile.
 */
export function mountTargets(policy: SandboxPolicy, tmpDir: string, coveredSockets: readonly string[] = []): string[] {
  const args = mountArgs(policy, tmpDir, coveredSockets);
  const targets: string[] = [];
  // Each option's operands: a bind's source and target, a mount's target, a setting's value.
  const operands: Record<string, number> = {
    '--bind': 2,
    '--ro-bind': 2,
    '--dev': 1,
    '--proc': 1,
    '--tmpfs': 1,
    '--remount-ro': 1,
    '--perms': 1,
    '--size': 1,
  };
  let index = 0;
  while (index < args.length) {
    const option = args[index]!;
    const count = operands[option] ?? 0;
    if (option !== '--perms' && option !== '--size' && count > 0) targets.push(args[index + count]!);
    index += count + 1;
  }
  return [...new Set(targets.filter((target) => target !== '/'))];
}

/** Where the run's root is mounted (its image under its own layer): beside its /tmp (see RunSandbox). */
export function imageRootMount(tmpDir: string): string {
  return join(dirname(tmpDir), 'root');
}

function mountArgs(policy: SandboxPolicy, tmpDir: string, coveredSockets: readonly string[]): string[] {
  // Under an image the root is the sandbox's own layer, writable whatever the mode (the mode is the workspace's).
  const args = policy.image ? ['--bind', imageRootMount(tmpDir), '/'] : ['--ro-bind', '/', '/'];
  args.push('--dev', '/dev', '--proc', '/proc', '--remount-ro', '/proc');
  if (!policy.image) {
    // Every run's private /tmp is `<parent>/<the sandbox's directory>/tmp`, with one parent for all (see
    // sandboxTmpParent): /tmp is covered by the run's own below, but another parent (delta-sandboxes-<uid>
    // under TMPDIR=/var/tmp) would show each tool every other run's /tmp. It is covered by an empty tmpfs
    // nobody can write (4 KB at most, should a tool make it writable). (Under an image nothing of this
    // machine's is there to cover.)
    const parent = dirname(dirname(tmpDir));
    if (parent !== '/tmp' && parent !== '/') args.push('--perms', '0555', '--size', '4096', '--tmpfs', parent);
    if (!policy.network) {
      args.push('--tmpfs', '/run');
      if (varRunIsDirectory()) args.push('--tmpfs', '/var/run');
    }
  }
  args.push('--bind', tmpDir, '/tmp');
  // A visible path under a writable one (an agent directory kept in its workspace) is bound after it:
  // bound before, the writable bind would cover it, and a tool could rewrite the agent's hooks.yaml. One
  // that IS the workspace (a PATH directory's top under /tmp, when the workspace is that directory) stays
  // before it: the workspace is writable as asked (chooseSandbox refuses an agent that is its workspace).
  const writable = [...(policy.mode === 'workspace-write' ? [policy.workspace] : []), ...policy.writablePaths];
  const covered = policy.visiblePaths.filter((path) => writable.some((outer) => path !== outer && isWithin(path, outer)));
  const inside = (path: string) => pathInside(policy, path);
  for (const path of policy.visiblePaths) if (!covered.includes(path)) args.push('--ro-bind', path, inside(path));
  args.push(policy.mode === 'workspace-write' ? '--bind' : '--ro-bind', policy.workspace, inside(policy.workspace));
  for (const path of policy.writablePaths) args.push('--bind', path, inside(path));
  for (const path of covered) args.push('--ro-bind', path, inside(path));
  // A writable path inside such a visible path (its cache directory) stays writable.
  for (const path of policy.writablePaths) {
    if (covered.some((visible) => path !== visible && isWithin(path, visible))) args.push('--bind', path, inside(path));
  }
  // Under an image, the run's control plane is not even visible: an empty directory nobody can write.
  for (const path of policy.protectedPaths) {
    if (policy.image) args.push('--perms', '0555', '--size', '4096', '--tmpfs', inside(path));
    else args.push('--ro-bind', path, path);
  }
  for (const mount of policy.image?.mounts ?? []) args.push(mount.writable ? '--bind' : '--ro-bind', mount.source, mount.target);
  // Last: a socket may be under any of the paths bound above.
  for (const socket of coveredSockets) args.push('--ro-bind', '/dev/null', inside(socket));
  return args;
}

/** Whether `path` is `outer` or lies under it (both absolute). */
function isWithin(path: string, outer: string): boolean {
  const relative = relativePath(outer, path);
  return relative === '' || (relative !== '..' && !relative.startsWith('../') && !isAbsolute(relative));
}

/**
 * The bubblewrap arguments that run one command of its own inside the run's sandbox (a long-lived one,
 * such as a server, rather than a tool call: those go through the launcher inside), before the command's
 * argv: it joins the run's user namespace (file descriptor USER_NAMESPACE_FD: the one the tools run in,
 * where no further user namespace can be made, which `--assert-userns-disabled` checks), with no
 * capability either, and gets a PID namespace and a mount namespace of its own, with the same view as
 * the sandbox's (see bubblewrapSandboxArgs). (It cannot join the run's PID namespace: that belongs to the
 * user namespace above the tools', in which nothing of the run holds a capability.)
 */
export function bubblewrapToolArgs(policy: SandboxPolicy, tmpDir: string, cwd: string, coveredSockets: readonly string[] = []): string[] {
  const args = [
    '--userns',
    String(USER_NAMESPACE_FD),
    '--assert-userns-disabled',
    '--unshare-pid',
    ...NO_PRIVILEGES,
    '--die-with-parent',
    ...mountArgs(policy, tmpDir, coveredSockets),
  ];
  if (!policy.network) args.push('--unshare-net');
  // A delta a tool starts (a sub-agent) cannot nest a sandbox in this one; it reads this and runs its
  // tools in the sandbox it is already in.
  args.push('--setenv', 'DELTA_SANDBOX', policy.mode);
  args.push('--chdir', cwd, '--');
  return args;
}
