// Limits per run (issue 44): a real sandbox's processes in cgroups of their own, as root (cgroup v1 on this
// project's machines, v2 where this process's cgroup offers the controllers); as an unprivileged user
// without a delegated cgroup the limits are reported as not held, never dropped silently.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunSandbox, runCommand, type SandboxPolicy } from '../index.js';
import { bubblewrapForTests } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox limit tests');
const root = mkdtempSync(join(tmpdir(), 'delta-sandbox-limits-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('\n!!! the sandbox limit tests run as root only where this test runs as root: SKIPPING the root part\n');

let runs = 0;
function policy(limits: SandboxPolicy['limits']): SandboxPolicy {
  runs += 1;
  const workspace = join(root, `workspace-${runs}`);
  mkdirSync(join(workspace, '.delta'), { recursive: true });
  chmodSync(workspace, 0o777);
  return {
    mode: 'workspace-write',
    network: false,
    workspace,
    protectedPaths: [join(workspace, '.delta')],
    visiblePaths: [],
    writablePaths: [],
    limits,
  };
}

let call = 0;
function sh(sandbox: RunSandbox, script: string) {
  call += 1;
  return runCommand({
    file: 'sh',
    args: ['-c', script],
    cwd: sandbox.policy.workspace,
    env: { PATH: '/usr/bin:/bin' },
    stdoutFile: join(root, `call-${call}.out`),
    stderrFile: join(root, `call-${call}.err`),
    sandbox,
    timeoutMs: 60_000,
  });
}

describe.skipIf(bubblewrap.skip)('limits per run (real bubblewrap and cgroups)', () => {
  it.skipIf(!isRoot)(
    'stops a fork bomb at the process limit, and a memory hog at the memory limit, in that run alone',
    async () => {
      const bounded = RunSandbox.start(policy({ processes: 40, memoryBytes: 64 * 1024 * 1024, cpus: 0.5 }), bubblewrap.path!);
      const free = RunSandbox.start(policy(undefined), bubblewrap.path!);
      try {
        expect(bounded.limits.enforcement?.unenforced).toEqual([]);
        expect(bounded.limits.enforcement?.enforced.map((entry) => entry.limit).sort()).toEqual(['cpus', 'memoryBytes', 'processes']);
        // A bounded fork bomb: 100 sleeps at once.
        const bomb = await sh(bounded, 'n=0; for i in $(seq 100); do sleep 30 & n=$((n+1)); done 2>/dev/null; ls /proc | grep -c "^[0-9]"');
        expect(Number(bomb.stdout.head.trim())).toBeLessThanOrEqual(40);
        expect(bounded.limits.hit).toContain('processes');
        // The run next to it is untouched.
        const other = await sh(free, 'for i in $(seq 100); do sleep 30 & done; ls /proc | grep -c "^[0-9]"');
        expect(Number(other.stdout.head.trim())).toBeGreaterThan(100);
        // 300 MB held in memory (tail keeps every byte of a stream with no newline): killed, the run goes on.
        const hog = await sh(bounded, 'pkill sleep; head -c 300000000 /dev/zero | tail > /dev/null; echo "status $?"');
        expect(hog.stdout.head).toMatch(/^status (137|1)\n$/);
        expect(bounded.limits.hit).toContain('memoryBytes');
        expect((await sh(bounded, 'echo still here')).stdout.head).toBe('still here\n');
      } finally {
        await Promise.all([bounded.stop(), free.stop()]);
      }
    },
    120_000,
  );

  it('as an unprivileged user without a delegated cgroup: reports each limit it cannot hold, and why', () => {
    const check = `
      const { RunSandbox } = await import(${JSON.stringify(join(import.meta.dirname, '../../dist/index.js'))});
      const sandbox = RunSandbox.start(${JSON.stringify(policy({ processes: 40, memoryBytes: 64 * 1024 * 1024 }))}, ${JSON.stringify(bubblewrap.path)});
      console.log(JSON.stringify(sandbox.limits.enforcement));
      await sandbox.stop();`;
    const prefix = isRoot ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'] : [];
    if (!existsSync(join(import.meta.dirname, '../../dist/index.js'))) throw new Error('build @delta/command-runner first (pnpm build)');
    const machineTmp = join(root, 'machine-tmp');
    mkdirSync(machineTmp, { mode: 0o777 });
    chmodSync(machineTmp, 0o777);
    const result = spawnSync(
      prefix[0] ?? process.execPath,
      [...prefix.slice(1), ...(prefix.length ? [process.execPath] : []), '--input-type=module', '-e', check],
      {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TMPDIR: machineTmp },
      },
    );
    expect(result.status, result.stderr).toBe(0);
    const enforcement = JSON.parse(result.stdout) as { unenforced: Array<{ limit: string; reason: string }> };
    expect(enforcement.unenforced.map((entry) => entry.limit).sort()).toEqual(['memoryBytes', 'processes']);
    for (const entry of enforcement.unenforced) expect(entry.reason).toMatch(/cgroup v[12]/);
  });
});
