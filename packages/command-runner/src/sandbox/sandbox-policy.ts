import { isAbsolute, join, relative } from 'node:path';
import type { SandboxLimits } from './cgroup-limits.js';

/** How much of the machine a run's tools may change. `off` runs them with all of the user's rights. */
export type SandboxMode = 'workspace-write' | 'read-only' | 'off';

export const SANDBOX_MODES: readonly SandboxMode[] = ['workspace-write', 'read-only', 'off'];

/**
 * An OCI image as the tools' root: its unpacked root (shared by every run over it, never written) under the
 * run's own copy-on-write layer, with the workspace mounted at `workdir`. See docs/environments.md.
 */
export interface SandboxImage {
  /** The image's unpacked root: the layer under the run's. */
  root: string;
  /** The run's own layer: its `upper/` (what the run changed outside the workspace, kept) and `work/`, made when missing. */
  layer: string;
  /** Where the workspace is inside the image (absolute). */
  workdir: string;
  /** The user and group the tools run as inside (the image's User); 0 (root in there) when not given. */
  uid?: number;
  gid?: number;
  /**
   * Layers between the image's root and this sandbox's own, topmost first, never written: a run's `upper/`,
   * for a grader that sees what the run changed without changing it.
   */
  lowers?: readonly string[];
  /** Directories of this machine bound at paths inside, after everything else (a grader's /tests and /logs/verifier). */
  mounts?: ReadonlyArray<{ source: string; target: string; writable: boolean }>;
}

/** What the tools of one run may do, when a sandbox is on (see bubblewrapToolArgs). */
export interface SandboxPolicy {
  mode: Exclude<SandboxMode, 'off'>;
  /** false: the tools have no network at all (a network namespace of their own, loopback only). */
  network: boolean;
  /** The workspace (absolute): writable in `workspace-write` mode, except `protectedPaths`. */
  workspace: string;
  /** Paths under the workspace tools may read but never change (the run's control plane, `.delta/`). */
  protectedPaths: readonly string[];
  /**
   * Paths tools must see as they are although they may be under /tmp, which the sandbox replaces (the
   * agent's directory, whose tools/ the tools run): read-only, also where they lie under the workspace
   * or a writable path (an agent kept in its workspace: bound after those).
   */
  visiblePaths: readonly string[];
  /** Further absolute paths tools may write, in either mode. */
  writablePaths: readonly string[];
  /** The root the tools see: this machine's, read-only, when not given. */
  image?: SandboxImage;
  /** What the run's processes may use together (held by cgroups where this user may make them: see RunSandbox.limits). */
  limits?: SandboxLimits;
}

/** Where `path` (of this machine) is inside the sandbox: under the image's workdir when it lies in the workspace. */
export function pathInside(policy: Pick<SandboxPolicy, 'workspace' | 'image'>, path: string): string {
  if (!policy.image) return path;
  const rest = relative(policy.workspace, path);
  if (rest === '') return policy.image.workdir;
  if (rest.startsWith('..') || isAbsolute(rest)) return path;
  return join(policy.image.workdir, rest);
}

/** The file descriptor a command's own bubblewrap receives: the user namespace the run's tools are in. */
export const USER_NAMESPACE_FD = 3;

/** The file descriptor from which every bubblewrap of a run reads its seccomp filter (see sandboxSeccompFilter). */
export const SECCOMP_FD = 4;

/** The install command a person is told when bubblewrap is missing. */
export const BUBBLEWRAP_INSTALL = 'sudo apt-get install bubblewrap';
