import { PID_NAMESPACE_FD, USER_NAMESPACE_FD, type SandboxPolicy } from './sandbox-policy.js';

/**
 * The bubblewrap arguments of a run's namespace holder: a process that owns the run's user and PID
 * namespaces for as long as the run lasts. Every tool joins them (see bubblewrapToolArgs), so that a
 * session started by one tool call is there for the next, and none of the engine's processes is
 * visible. When the holder ends, the kernel kills every process left in its PID namespace: nothing a tool
 * started outlives the run. Its own view of the file system is all read-only (a tool that looks at it
 * through /proc/1/root gains nothing). `infoFd` receives `{"child-pid": N}` once it runs. `holdProgram`
 * runs as long as the run: it must end when the engine does (it reads a pipe from the engine to its end).
 */
export function bubblewrapHolderArgs(infoFd: number, holdProgram: readonly string[]): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--die-with-parent',
    '--info-fd',
    String(infoFd),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--',
    ...holdProgram,
  ];
}

/**
 * The bubblewrap arguments that run one tool call inside the run's sandbox, before the tool's own argv:
 * it joins the run's namespaces (file descriptors USER_NAMESPACE_FD and PID_NAMESPACE_FD), and gets a
 * mount namespace of its own in which the whole file system is read-only, /tmp is `tmpDir` (the run's
 * own, shared by its tools and no one else), the visible paths (the agent's directory) are read-only as
 * they are, the workspace is writable (`workspace-write`) except the protected paths, and so are the
 * writable paths. The order matters: a later mount covers an earlier one, so the workspace (which may be
 * under /tmp) is bound after /tmp, and the protected paths after the workspace.
 */
export function bubblewrapToolArgs(policy: SandboxPolicy, tmpDir: string, cwd: string): string[] {
  const args = [
    '--userns',
    String(USER_NAMESPACE_FD),
    '--pidns',
    String(PID_NAMESPACE_FD),
    '--die-with-parent',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--bind',
    tmpDir,
    '/tmp',
  ];
  for (const path of policy.visiblePaths) args.push('--ro-bind', path, path);
  args.push(policy.mode === 'workspace-write' ? '--bind' : '--ro-bind', policy.workspace, policy.workspace);
  for (const path of policy.writablePaths) args.push('--bind', path, path);
  for (const path of policy.protectedPaths) args.push('--ro-bind', path, path);
  if (!policy.network) args.push('--unshare-net');
  // A delta a tool starts (a sub-agent) cannot nest a sandbox in this one; it reads this and runs its
  // tools in the sandbox it is already in.
  args.push('--setenv', 'DELTA_SANDBOX', policy.mode);
  args.push('--chdir', cwd, '--');
  return args;
}
