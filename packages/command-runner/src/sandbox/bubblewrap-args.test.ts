import { describe, expect, it } from 'vitest';
import { bubblewrapSandboxArgs, bubblewrapToolArgs } from './bubblewrap-args.js';
import type { SandboxPolicy } from './sandbox-policy.js';

const policy: SandboxPolicy = {
  mode: 'workspace-write',
  network: true,
  workspace: '/tmp/ws',
  protectedPaths: ['/tmp/ws/.delta'],
  visiblePaths: ['/tmp/agent'],
  writablePaths: ['/data/out'],
};

/** The mount arguments only, in order: [option, source, destination]. */
function mounts(args: string[]): string[][] {
  const found: string[][] = [];
  for (let index = 0; index < args.length; index += 1) {
    if (['--bind', '--ro-bind'].includes(args[index]!)) found.push(args.slice(index, index + 3));
  }
  return found;
}

const expectedMounts = [
  ['--ro-bind', '/', '/'],
  ['--bind', '/var/tmp/run/tmp', '/tmp'],
  ['--ro-bind', '/tmp/agent', '/tmp/agent'],
  ['--bind', '/tmp/ws', '/tmp/ws'],
  ['--bind', '/data/out', '/data/out'],
  ['--ro-bind', '/tmp/ws/.delta', '/tmp/ws/.delta'],
];

describe('bubblewrapSandboxArgs', () => {
  it('new user and PID namespaces, the launcher as their first process; / and /proc read-only, the run tmp on /tmp, the workspace, .delta/ read-only', () => {
    const args = bubblewrapSandboxArgs(policy, '/var/tmp/run/tmp', 3);
    expect(mounts(args)).toEqual(expectedMounts);
    expect(args.slice(0, 12)).toEqual([
      '--unshare-user',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--new-session',
      '--seccomp',
      '4',
      '--disable-userns',
      '--die-with-parent',
      '--as-pid-1',
      '--info-fd',
      '3',
    ]);
    expect(args.slice(args.indexOf('--proc'), args.indexOf('--proc') + 4)).toEqual(['--proc', '/proc', '--remount-ro', '/proc']);
    expect(args).not.toContain('--unshare-net');
    // The machine's temporary directory, which holds every run's /tmp, is covered (read-only, empty) first.
    expect(args.slice(args.indexOf('--tmpfs') - 4, args.indexOf('--tmpfs') + 2)).toEqual([
      '--perms',
      '0555',
      '--size',
      '4096',
      '--tmpfs',
      '/var/tmp',
    ]);
    expect(args.filter((arg) => arg === '--tmpfs')).toHaveLength(1);
    expect(args.indexOf('--tmpfs')).toBeLessThan(args.indexOf('/var/tmp/run/tmp'));
    // Under /tmp it is hidden by the run's own /tmp already; `/` is never covered.
    expect(bubblewrapSandboxArgs(policy, '/tmp/run/tmp', 3)).not.toContain('--tmpfs');
    expect(bubblewrapSandboxArgs(policy, '/run/tmp', 3)).not.toContain('--tmpfs');
    // The launcher starts in its directory (which the engine then moves out of sight).
    expect(args.slice(-3)).toEqual(['--chdir', '/tmp/.delta-io', '--']);
  });

  it('binds a visible path under the workspace or a writable path (an agent kept in its workspace) read-only AFTER them', () => {
    const inside: SandboxPolicy = {
      ...policy,
      visiblePaths: ['/tmp', '/tmp/ws/agent', '/data/out/agent', '/tmp/wsx', '/tmp/ws'],
      writablePaths: ['/data/out', '/tmp/ws/agent/cache'],
    };
    expect(mounts(bubblewrapSandboxArgs(inside, '/var/tmp/run/tmp', 3))).toEqual([
      ['--ro-bind', '/', '/'],
      ['--bind', '/var/tmp/run/tmp', '/tmp'],
      // (a directory that holds the workspace, a mere name prefix of it, and the workspace itself: before)
      ['--ro-bind', '/tmp', '/tmp'],
      ['--ro-bind', '/tmp/wsx', '/tmp/wsx'],
      ['--ro-bind', '/tmp/ws', '/tmp/ws'],
      ['--bind', '/tmp/ws', '/tmp/ws'],
      ['--bind', '/data/out', '/data/out'],
      ['--bind', '/tmp/ws/agent/cache', '/tmp/ws/agent/cache'],
      ['--ro-bind', '/tmp/ws/agent', '/tmp/ws/agent'],
      ['--ro-bind', '/data/out/agent', '/data/out/agent'],
      // a writable path inside the agent's directory stays writable
      ['--bind', '/tmp/ws/agent/cache', '/tmp/ws/agent/cache'],
      ['--ro-bind', '/tmp/ws/.delta', '/tmp/ws/.delta'],
    ]);
  });

  it('read-only binds the workspace read-only; no network unshares it, empties /run and covers the sockets given, last', () => {
    const args = bubblewrapSandboxArgs({ ...policy, mode: 'read-only', network: false }, '/var/tmp/run/tmp', 3, [
      '/tmp/ws/s.sock',
      '/home/u/s',
    ]);
    expect(mounts(args)).toContainEqual(['--ro-bind', '/tmp/ws', '/tmp/ws']);
    expect(args).toContain('--unshare-net');
    const run = args.findIndex((arg, index) => arg === '--tmpfs' && args[index + 1] === '/run');
    expect(run).toBeGreaterThan(-1);
    expect(run).toBeLessThan(args.indexOf('/var/tmp/run/tmp'));
    expect(mounts(args).slice(-2)).toEqual([
      ['--ro-bind', '/dev/null', '/tmp/ws/s.sock'],
      ['--ro-bind', '/dev/null', '/home/u/s'],
    ]);
  });
});

describe('bubblewrapToolArgs', () => {
  it("joins the tools' user namespace (checked to allow no other), with the same mounts as the sandbox in the same order", () => {
    const args = bubblewrapToolArgs(policy, '/var/tmp/run/tmp', '/tmp/ws');
    expect(mounts(args)).toEqual(expectedMounts);
    expect(args.slice(0, 10)).toEqual([
      '--userns',
      '3',
      '--assert-userns-disabled',
      '--unshare-pid',
      '--cap-drop',
      'ALL',
      '--new-session',
      '--seccomp',
      '4',
      '--die-with-parent',
    ]);
    expect(args).not.toContain('--unshare-net');
    expect(args).not.toContain('--as-pid-1');
    expect(args).toContain('--remount-ro');
    expect(args.slice(-6)).toEqual(['--setenv', 'DELTA_SANDBOX', 'workspace-write', '--chdir', '/tmp/ws', '--']);
  });

  it('read-only binds the workspace read-only; no network unshares it', () => {
    const args = bubblewrapToolArgs({ ...policy, mode: 'read-only', network: false }, '/var/tmp/run/tmp', '/tmp/ws/sub', ['/home/u/s']);
    expect(mounts(args)).toContainEqual(['--ro-bind', '/tmp/ws', '/tmp/ws']);
    expect(mounts(args).at(-1)).toEqual(['--ro-bind', '/dev/null', '/home/u/s']);
    expect(args).toContain('--unshare-net');
    expect(args.slice(-3)).toEqual(['--chdir', '/tmp/ws/sub', '--']);
  });
});
