import { describe, expect, it } from 'vitest';
import { bubblewrapToolArgs } from './bubblewrap-args.js';
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

describe('bubblewrapToolArgs', () => {
  it('mounts / read-only, then the run tmp on /tmp, then the workspace (so one under /tmp stays), then .delta/ read-only', () => {
    const args = bubblewrapToolArgs(policy, '/var/tmp/run-tmp', '/tmp/ws');
    expect(mounts(args)).toEqual([
      ['--ro-bind', '/', '/'],
      ['--bind', '/var/tmp/run-tmp', '/tmp'],
      ['--ro-bind', '/tmp/agent', '/tmp/agent'],
      ['--bind', '/tmp/ws', '/tmp/ws'],
      ['--bind', '/data/out', '/data/out'],
      ['--ro-bind', '/tmp/ws/.delta', '/tmp/ws/.delta'],
    ]);
    expect(args.slice(0, 4)).toEqual(['--userns', '3', '--pidns', '4']);
    expect(args).not.toContain('--unshare-net');
    expect(args.slice(-6)).toEqual(['--setenv', 'DELTA_SANDBOX', 'workspace-write', '--chdir', '/tmp/ws', '--']);
  });

  it('read-only binds the workspace read-only; no network unshares it', () => {
    const args = bubblewrapToolArgs({ ...policy, mode: 'read-only', network: false }, '/var/tmp/run-tmp', '/tmp/ws/sub');
    expect(mounts(args)).toContainEqual(['--ro-bind', '/tmp/ws', '/tmp/ws']);
    expect(args).toContain('--unshare-net');
    expect(args.slice(-3)).toEqual(['--chdir', '/tmp/ws/sub', '--']);
  });
});
