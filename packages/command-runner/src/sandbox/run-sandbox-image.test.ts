// Tools with an image as their root (issue 43): a busybox root made here, under each run's own copy-on-write
// layer (a real overlay mount in a user namespace of the sandbox's, real bubblewrap). The same through the
// real `delta` binary, as root and as nobody: apps/delta-cli/src/image-run.e2e.test.ts.
import {
  closeSync,
  existsSync,
  openSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  copyFileSync,
  chmodSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listLayerChanges, removeLayer, RunSandbox, runCommand, type SandboxPolicy } from '../index.js';
import { bubblewrapForTests } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox image tests');
const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((path) => existsSync(path));
const missing = busybox === undefined ? (process.env.DELTA_TEST_IMAGE_TOOLS_UNAVAILABLE ?? 'busybox-static is not installed') : undefined;
if (missing) console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandbox image tests: ${missing}.\n!!!!!!!!\n`);

const root = mkdtempSync(join(tmpdir(), 'delta-sandbox-image-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A busybox root: /bin (busybox and its applets), /etc/image-release, /testbed/README. */
function makeImageRoot(): string {
  const image = join(root, 'image');
  for (const dir of ['bin', 'etc', 'testbed', 'tmp', 'proc', 'dev']) mkdirSync(join(image, dir), { recursive: true });
  copyFileSync(busybox!, join(image, 'bin', 'busybox'));
  chmodSync(join(image, 'bin', 'busybox'), 0o755);
  for (const applet of ['sh', 'ls', 'cat', 'echo', 'rm', 'touch', 'id', 'env', 'sleep', 'grep', 'wc', 'ps'])
    symlinkSync('busybox', join(image, 'bin', applet));
  writeFileSync(join(image, 'etc', 'image-release'), 'busybox test image\n');
  writeFileSync(join(image, 'testbed', 'README'), 'the repository\n');
  return image;
}

const imageRoot = missing ? '' : makeImageRoot();
let runs = 0;

function imagePolicy(network = false): SandboxPolicy & { image: NonNullable<SandboxPolicy['image']> } {
  runs += 1;
  const workspace = join(root, `workspace-${runs}`);
  mkdirSync(join(workspace, '.delta'), { recursive: true });
  writeFileSync(join(workspace, '.delta', 'journal.jsonl'), 'the journal\n');
  return {
    mode: 'workspace-write',
    network,
    workspace,
    protectedPaths: [join(workspace, '.delta')],
    visiblePaths: [],
    writablePaths: [],
    image: { root: imageRoot, layer: join(root, `layer-${runs}`), workdir: '/workspace' },
  };
}

let call = 0;
function sh(sandbox: RunSandbox, script: string) {
  call += 1;
  return runCommand({
    file: 'sh',
    args: ['-c', script],
    cwd: sandbox.policy.workspace,
    env: { PATH: '/bin' },
    stdoutFile: join(root, `call-${call}.out`),
    stderrFile: join(root, `call-${call}.err`),
    sandbox,
  });
}

describe.skipIf(bubblewrap.skip || missing !== undefined)('a sandbox with an image as its root (real bubblewrap and overlay)', () => {
  it("runs tools with the image as /, the workspace at its workdir, .delta/ out of sight, changes in the run's own layer", async () => {
    const policy = imagePolicy();
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      const result = await sh(
        sandbox,
        [
          'pwd; ls /; cat /etc/image-release /testbed/README; id -u',
          'ls -A /workspace/.delta; touch /workspace/.delta/x 2>/dev/null || echo delta-refused',
          'test -e /etc/debian_version || echo host-hidden',
          'echo made > /workspace/made.txt; echo changed > /testbed/README; echo new > /etc/new.conf; rm /bin/wc',
        ].join('\n'),
      );
      expect(result.stderr.head).toBe('');
      expect(result.stdout.head).toBe(
        [
          '/workspace',
          'bin',
          'dev',
          'etc',
          'proc',
          'testbed',
          'tmp',
          'workspace',
          'busybox test image',
          'the repository',
          '0',
          'delta-refused',
          'host-hidden',
          '',
        ].join('\n'),
      );
      expect(readFileSync(join(policy.workspace, 'made.txt'), 'utf8')).toBe('made\n');
      expect(readdirSync(join(policy.workspace, '.delta'))).toEqual(['journal.jsonl']);
      // The image never changes; the run's layer holds what it changed, a deletion as a whiteout.
      expect(readFileSync(join(imageRoot, 'testbed', 'README'), 'utf8')).toBe('the repository\n');
      expect(existsSync(join(imageRoot, 'etc', 'new.conf'))).toBe(false);
      expect(existsSync(join(imageRoot, 'bin', 'wc'))).toBe(true);
      const upper = join(policy.image.layer, 'upper');
      expect(readFileSync(join(upper, 'testbed', 'README'), 'utf8')).toBe('changed\n');
      expect(readFileSync(join(upper, 'etc', 'new.conf'), 'utf8')).toBe('new\n');
      expect(readdirSync(join(upper, 'bin'))).toEqual(['wc']);
      // The next call sees the run's changes.
      expect((await sh(sandbox, 'cat /testbed/README /etc/new.conf')).stdout.head).toBe('changed\nnew\n');
    } finally {
      await sandbox.stop();
    }
    // Nothing of it is mounted here; its changes are listed, and its layer goes whole when asked.
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(root);
    expect(listLayerChanges(policy.image.layer)).toEqual({
      changes: [
        { path: '/bin/wc', change: 'deleted' },
        { path: '/etc/new.conf', change: 'written' },
        { path: '/testbed/README', change: 'written' },
      ],
      more: false,
    });
    expect(listLayerChanges(policy.image.layer, 1)).toEqual({ changes: [{ path: '/bin/wc', change: 'deleted' }], more: true });
    removeLayer(policy.image.layer);
    expect(existsSync(policy.image.layer)).toBe(false);
  });

  it("keeps two runs over one image apart: neither sees the other's changes", async () => {
    const [first, second] = [RunSandbox.start(imagePolicy(), bubblewrap.path!), RunSandbox.start(imagePolicy(), bubblewrap.path!)];
    try {
      await Promise.all([sh(first, 'echo first > /etc/mine'), sh(second, 'echo second > /etc/mine; rm /testbed/README')]);
      expect((await sh(first, 'cat /etc/mine /testbed/README')).stdout.head).toBe('first\nthe repository\n');
      expect((await sh(second, 'cat /etc/mine; ls /testbed')).stdout.head).toBe('second\n');
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
    expect(readFileSync(join(imageRoot, 'testbed', 'README'), 'utf8')).toBe('the repository\n');
  });

  it("runs a command of its own (as an MCP server runs) in the same root, seeing the run's changes", async () => {
    const policy = imagePolicy();
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      await sh(sandbox, 'echo from-a-tool > /etc/tool.conf');
      const command = await sandbox.wrap(
        'sh',
        ['-c', 'pwd; cat /etc/image-release /etc/tool.conf; echo server > /etc/server.conf'],
        policy.workspace,
      );
      const inherited = command.inheritFiles.map((file) => openSync(file, 'r'));
      const child = spawn(command.file, command.args, {
        stdio: ['ignore', 'pipe', 'pipe', ...inherited, ...command.inheritData.map(() => 'pipe' as const)],
      });
      for (const fd of inherited) closeSync(fd);
      command.inheritData.forEach((data, index) => {
        (child.stdio[3 + inherited.length + index] as Writable).end(data);
      });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      expect(await new Promise((resolve) => child.once('close', resolve)), stderr).toBe(0);
      expect(stdout).toBe('/workspace\nbusybox test image\nfrom-a-tool\n');
      expect((await sh(sandbox, 'cat /etc/server.conf')).stdout.head).toBe('server\n');
    } finally {
      await sandbox.stop();
    }
  });

  it('holds what the sandbox promises there too: the launcher out of reach, no capability, no network when off', async () => {
    const sandbox = RunSandbox.start(imagePolicy(false), bubblewrap.path!);
    try {
      const result = await sh(
        sandbox,
        [
          'cat /proc/1/environ >/dev/null 2>&1 && echo launcher-reachable || echo launcher-closed',
          'grep CapEff /proc/self/status',
          'grep -c : /proc/net/dev',
          'echo x > /proc/self/oom_score_adj 2>/dev/null || echo proc-read-only',
        ].join('\n'),
      );
      // (one network interface: loopback)
      expect(result.stdout.head).toBe('launcher-closed\nCapEff:\t0000000000000000\n1\nproc-read-only\n');
    } finally {
      await sandbox.stop();
    }
  });
});
