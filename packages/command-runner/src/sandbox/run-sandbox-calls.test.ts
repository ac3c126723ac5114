import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSandbox, runCommand } from '../index.js';
import { until } from './sandbox.test-support.js';
import {
  bubblewrap,
  call,
  launcher,
  nextCall,
  policy,
  root,
  sh,
  skip,
  startLauncherAndServer,
  stopLauncherAndServer,
  workspace,
} from './run-sandbox.test-support.js';

beforeAll(startLauncherAndServer);
afterAll(stopLauncherAndServer);

/** The processes, seen from here, that live in the PID namespace whose /proc/<pid>/ns/pid link is `namespace`. */
function processesIn(namespace: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readlinkSync(`/proc/${entry}/ns/pid`) === namespace;
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(skip)('a sandboxed tool (real bubblewrap)', () => {
  it('keeps what a call left running (a session) for the next call, and ends every process with the run', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    // A process that leaves its process group (as a session supervisor does) survives its call: the call
    // returns once it has (its pid file is written after setsid)...
    const first = await sh(
      sandbox,
      "setsid sh -c 'echo $$ > /tmp/session.pid; exec sleep 600' > /dev/null 2>&1 < /dev/null & sleep 300 & while [ ! -s /tmp/session.pid ]; do sleep 0.01; done; echo started",
    );
    expect(first.stdout.head).toBe('started\n');
    const second = await sh(sandbox, 'ps -eo args=');
    expect(second.stdout.head).toContain('sleep 600');
    // ...while the plain background job (in the call's group) was stopped when the call ended.
    expect(second.stdout.head).not.toContain('sleep 300');
    const namespace = readlinkSync((await sandbox.wrap('true', [], workspace)).inheritFiles[0]!.replace(/user$/, 'pid'));
    const session = processesIn(namespace).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000600\u0000');
    expect(session).toHaveLength(1);
    await sandbox.stop();
    // Nothing is left in the run's PID namespace: the setsid escape ended with it.
    await until(() => processesIn(namespace).length === 0, "the run's processes to end");
    expect(existsSync(sandbox.tmpDir)).toBe(false);
  });

  it('stops a call at its timeout through the launcher inside, with everything in its process group', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      // Once the sandbox runs (its start is not the call's time).
      await sh(sandbox, 'true');
      nextCall();
      const result = await runCommand({
        file: 'sh',
        args: ['-c', 'sleep 600 & echo started; wait'],
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdoutFile: join(root, `call-${call}.out`),
        stderrFile: join(root, `call-${call}.err`),
        timeoutMs: 1000,
        launcher,
        sandbox,
      });
      expect(result.timedOut).toBe(true);
      expect(result.signal).toBe('SIGTERM');
      expect(result.stdout.head).toBe('started\n');
      expect((await sh(sandbox, 'ps -eo args=')).stdout.head).not.toContain('sleep 600');
    } finally {
      await sandbox.stop();
    }
  });

  it('ends the sandbox when a stopped call is never reported ended (a tool stopped its watcher)', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      nextCall();
      const marker = join(workspace, 'launcher-stopped');
      const abort = new AbortController();
      const running = runCommand({
        file: 'sh',
        args: [
          '-c',
          // Its watcher, a fork of the launcher (pid 1, which no tool can stop: kill -STOP 1 does nothing).
          `kill -STOP 1; for p in /proc/[0-9]*; do case "$(tr -d '\\0' < $p/cmdline)" in delta-sandbox-launcher*) kill -STOP \${p#/proc/};; esac; done; touch ${marker}; sleep 600`,
        ],
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdoutFile: join(root, `call-${call}.out`),
        stderrFile: join(root, `call-${call}.err`),
        signal: abort.signal,
        killGraceMs: 100,
        launcher,
        sandbox,
      });
      await until(() => existsSync(marker), 'the tool to stop the launcher');
      abort.abort();
      const result = await running;
      expect(result.aborted).toBe(true);
      expect(result.startError).toBe("the run's sandbox was ended: its launcher did not report a stopped call's end");
      expect((await sh(sandbox, 'echo again')).startError).toMatch(/^the run's sandbox \(bubblewrap\) is not running/);
    } finally {
      await sandbox.stop();
    }
  }, 30_000);

  it('ends the sandbox when a call it was stopping was never even reported started (the launcher frozen first)', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      expect((await sh(sandbox, 'echo up')).stdout.head).toBe('up\n');
      // Frozen from here, as a tool could freeze it, before the next call: its pid is never said.
      const namespace = readlinkSync((await sandbox.wrap('true', [], workspace)).inheritFiles[0]!.replace(/user$/, 'pid'));
      // The launcher itself: once the watcher it forked for `echo up` (a process with its name) has ended.
      const launchers = () =>
        processesIn(namespace).filter((pid) => {
          try {
            return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('delta-sandbox-launcher');
          } catch {
            return false; // ended since it was listed
          }
        });
      await until(() => launchers().length === 1, "the last call's watcher to end");
      const frozen = launchers();
      expect(frozen).toHaveLength(1);
      process.kill(frozen[0]!, 'SIGSTOP');
      nextCall();
      const result = await runCommand({
        file: 'sh',
        args: ['-c', 'echo never'],
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdoutFile: join(root, `call-${call}.out`),
        stderrFile: join(root, `call-${call}.err`),
        timeoutMs: 100,
        killGraceMs: 100,
        launcher,
        sandbox,
      });
      expect(result.timedOut).toBe(true);
      expect(result.startError).toBe("the run's sandbox was ended: its launcher did not report a stopped call's end");
    } finally {
      await sandbox.stop();
    }
  }, 30_000);

  it('leaves no process behind when stopped at once after its start', async () => {
    const stopped: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
      // Its bubblewrap started at once (as a first tool call would), or stopped before its turn to start came.
      if (round % 2 === 0) sandbox.startIfWaiting();
      await sandbox.stop();
      stopped.push(sandbox.tmpDir);
      expect(existsSync(sandbox.tmpDir)).toBe(false);
      // Nothing runs in a stopped sandbox, whether it had started or not.
      expect((await sh(sandbox, 'echo never')).startError).toMatch(/^the run's sandbox \(bubblewrap\) is not running/);
    }
    const left = () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((entry) => {
          try {
            const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
            return stopped.some((dir) => cmdline.includes(dir));
          } catch {
            return false;
          }
        });
    await until(() => left().length === 0, 'the stopped sandboxes to end');
  });

  it('reports a program that does not exist as it does without a sandbox', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      nextCall();
      const result = await runCommand({
        file: 'no-such-program-here',
        args: [],
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdoutFile: join(root, `call-${call}.out`),
        stderrFile: join(root, `call-${call}.err`),
        launcher,
        sandbox,
      });
      expect(result.exitCode).toBeNull();
      expect(result.startError).toBe('command not found: no-such-program-here');
    } finally {
      await sandbox.stop();
    }
  });
});
