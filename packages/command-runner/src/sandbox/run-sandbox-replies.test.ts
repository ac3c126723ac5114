// A tool that takes the sandbox launcher's reply channel over (pidfd_getfd on its stdout, which any process
// of the run's sandbox may do: same uid, same user namespace) and writes on it as it likes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSandbox, runCommand, type SandboxPolicy } from '../index.js';
import { bubblewrapForTests, workspacePolicy } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox reply-channel tests');

// Made only when the tests run (a filtered run skips the hooks, and would leave it behind).
let root = '';
let policy: SandboxPolicy;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'delta-sandbox-replies-'));
  policy = workspacePolicy(join(root, 'workspace'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Runs `command` (a shell command line) with the launcher's stdout as its file descriptor 9: perl opens the
 * launcher (the tool's grandparent) with pidfd_open (434) and copies its descriptor 1 with pidfd_getfd (438).
 */
const onLauncherStdout = (command: string) =>
  `L=$(awk '{print $4}' /proc/$PPID/stat); exec perl -e 'use POSIX; my $p = syscall(434, $ARGV[0] + 0, 0); my $fd = syscall(438, $p, 1, 0); die "pidfd: $!" if $fd < 0; dup2($fd, 9) or die; exec "sh", "-c", $ARGV[1]' "$L" '${command}'`;

let call = 0;
function sh(sandbox: RunSandbox, script: string, timeoutMs: number) {
  call += 1;
  const stderrFile = join(root, `call-${call}.err`);
  const result = runCommand({
    file: 'sh',
    args: ['-c', script],
    cwd: policy.workspace,
    env: { PATH: '/usr/bin:/bin' },
    stdoutFile: join(root, `call-${call}.out`),
    stderrFile,
    sandbox,
    timeoutMs,
    killGraceMs: 200,
  });
  return { result, stderr: () => readFileSync(stderrFile, 'utf8') };
}

describe.skipIf(bubblewrap.skip)("a tool writing on the sandbox launcher's replies (real bubblewrap)", () => {
  it('can end its own sandbox with a line that never ends, but not make the engine hold it', async () => {
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      // 4 MB with no newline, then the tool waits: before, the engine kept every byte (a tool could send
      // gigabytes, the engine's memory and a scan of the whole buffer per chunk growing with it) until the
      // call's timeout.
      const { result, stderr } = sh(sandbox, onLauncherStdout('head -c 4000000 /dev/zero | tr "\\0" a >&9; exec sleep 60'), 30_000);
      const outcome = await result;
      expect(stderr()).toBe('');
      expect(outcome.timedOut).toBe(false);
      expect(outcome.startError).toMatch(/the command launcher sent a line longer than \d+ characters/);
      // The sandbox is ended with it: nothing more runs in it.
      const after = await sh(sandbox, 'echo still', 10_000).result;
      expect(after.startError).toMatch(/sandbox \(bubblewrap\) is not running/);
    } finally {
      await sandbox.stop();
    }
  }, 60_000);

  it('can end its own sandbox with a forged status out of range, never report it as an exit code', async () => {
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      // Its own call's end, forged (the first call is id 2: 1 is the launcher's readiness check).
      const { result } = sh(sandbox, onLauncherStdout(`printf "E 2 ${'9'.repeat(400)}\\n" >&9; exec sleep 60`), 30_000);
      const outcome = await result;
      expect(outcome.timedOut).toBe(false);
      expect(outcome.exitCode).toBeNull();
      expect(outcome.startError).toMatch(/the command launcher sent what is not a reply: E 2 9+/);
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
