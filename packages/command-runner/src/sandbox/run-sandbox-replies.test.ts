// A tool that tries to take the sandbox launcher's reply channel over (pidfd_getfd on its stdout, or its
// /proc/<pid>/fd/1), to write on it as it likes: before, any process of the run's sandbox could (same uid,
// same user namespace). The whole attack from a real run, as root and as nobody:
// apps/delta-cli/src/forged-results.e2e.test.ts. What the engine does with a launcher that sends what is
// not a reply: launcher-lifecycle.test.ts.
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
 * Runs `command` (a shell command line) with the stdout of process `pid` (a shell expression) as its file
 * descriptor 9: perl opens it with pidfd_open (434) and copies its descriptor 1 with pidfd_getfd (438).
 */
const onStdoutOf = (pid: string, command: string) =>
  `exec perl -e 'use POSIX; my $p = syscall(434, $ARGV[0] + 0, 0); my $fd = syscall(438, $p, 1, 0); die "pidfd_getfd: $!\\n" if $fd < 0; dup2($fd, 9) or die; exec "sh", "-c", $ARGV[1]' "${pid}" '${command}'`;

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
  it("cannot take the launcher's or its watcher's stdout: its call ends as it ended", async () => {
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      // Its own call's end, forged as 0 (the first call is id 2: 1 is the launcher's readiness check).
      for (const pid of ['1', '$PPID']) {
        const { result, stderr } = sh(sandbox, onStdoutOf(pid, 'printf "E 2 0\\nE 3 0\\n" >&9; exit 7'), 30_000);
        const outcome = await result;
        expect(outcome.startError).toBeUndefined();
        expect(outcome.exitCode).toBe(1);
        expect(stderr()).toBe('pidfd_getfd: Operation not permitted\n');
        const { result: opened, stderr: openError } = sh(sandbox, `echo "E 9 0" > /proc/${pid}/fd/1`, 30_000);
        expect((await opened).exitCode).not.toBe(0);
        expect(openError()).toMatch(/Permission denied/);
      }
      expect((await sh(sandbox, 'exit 3', 30_000).result).exitCode).toBe(3);
    } finally {
      await sandbox.stop();
    }
  }, 60_000);
});
