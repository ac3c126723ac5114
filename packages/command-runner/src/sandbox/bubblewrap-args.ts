import { join } from 'node:path';
import { PID_NAMESPACE_FD, USER_NAMESPACE_FD, type SandboxPolicy } from './sandbox-policy.js';

/**
 * The bubblewrap arguments of a run's sandbox, before the program it runs (the run's tool launcher, whose
 * every tool call is a plain spawn in there): new user and PID namespaces, so that none of the engine's
 * processes is visible and, when the sandbox ends, the kernel ends every process left in it (nothing a
 * tool started outlives the run); and one mount namespace, shared by every tool call of the run, in
 * which the whole file system is read-only, /tmp is `tmpDir` (the run's own), the visible paths (the
 * agent's directory, the launcher's program) are read-only as they are, the workspace is writable
 * (`workspace-write`) except the protected paths, and so are the writable paths. `/tmp/.delta-io` is
 * `tmpDir/.delta-io` bound on itself: where the launcher opens each call's output (see RunSandbox), a
 * mount point no tool can remove or replace by a symbolic link. The order matters: a later mount covers
 * an earlier one, so the workspace (which may be under /tmp) is bound after /tmp, and the protected paths
 * after the workspace. `infoFd` receives `{"child-pid": N}` (the namespace's first process) once it runs.
 */
export function bubblewrapSandboxArgs(policy: SandboxPolicy, tmpDir: string, infoFd: number): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--die-with-parent',
    '--info-fd',
    String(infoFd),
    ...mountArgs(policy, tmpDir),
    ...(policy.network ? [] : ['--unshare-net']),
    '--',
  ];
}

/** Where, under the sandbox's /tmp, the launcher inside opens each call's output files. */
export const SANDBOX_OUTPUT_DIR = '.delta-io';

function mountArgs(policy: SandboxPolicy, tmpDir: string): string[] {
  const output = join(tmpDir, SANDBOX_OUTPUT_DIR);
  const args = [
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
    '--bind',
    output,
    join('/tmp', SANDBOX_OUTPUT_DIR),
  ];
  for (const path of policy.visiblePaths) args.push('--ro-bind', path, path);
  args.push(policy.mode === 'workspace-write' ? '--bind' : '--ro-bind', policy.workspace, policy.workspace);
  for (const path of policy.writablePaths) args.push('--bind', path, path);
  for (const path of policy.protectedPaths) args.push('--ro-bind', path, path);
  return args;
}

/**
 * The bubblewrap arguments that run one command of its own inside the run's sandbox (a long-lived one,
 * such as a server, rather than a tool call: those go through the launcher inside), before the command's
 * argv: it joins the run's namespaces (file descriptors USER_NAMESPACE_FD and PID_NAMESPACE_FD), and gets
 * a mount namespace of its own with the same view as the sandbox's (see bubblewrapSandboxArgs).
 */
export function bubblewrapToolArgs(policy: SandboxPolicy, tmpDir: string, cwd: string): string[] {
  const args = [
    '--userns',
    String(USER_NAMESPACE_FD),
    '--pidns',
    String(PID_NAMESPACE_FD),
    '--die-with-parent',
    ...mountArgs(policy, tmpDir),
  ];
  if (!policy.network) args.push('--unshare-net');
  // A delta a tool starts (a sub-agent) cannot nest a sandbox in this one; it reads this and runs its
  // tools in the sandbox it is already in.
  args.push('--setenv', 'DELTA_SANDBOX', policy.mode);
  args.push('--chdir', cwd, '--');
  return args;
}
