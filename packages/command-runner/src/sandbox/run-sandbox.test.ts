import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readProcessStat } from '@delta/process-identity';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandLauncher, RunSandbox, runCommand, type CommandResult, type SandboxPolicy } from '../index.js';
import { bubblewrapForTests, until } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox tests');
const skip = bubblewrap.skip;

const root = mkdtempSync(join(tmpdir(), 'delta-sandbox-test-'));
const workspace = join(root, 'workspace');
const control = join(workspace, '.delta');
const outside = join(root, 'outside');
for (const dir of [workspace, control, outside]) mkdirSync(dir, { recursive: true });
writeFileSync(join(control, 'journal.jsonl'), 'the journal\n');
writeFileSync(join(outside, 'kept.txt'), 'kept\n');

const policy = (network: boolean): SandboxPolicy => ({
  mode: 'workspace-write',
  network,
  workspace,
  protectedPaths: [control],
  visiblePaths: [],
  writablePaths: [],
});

let launcher: CommandLauncher;
let server: Server;
let port = 0;
beforeAll(async () => {
  launcher = CommandLauncher.start();
  // A loopback server outside the sandbox.
  server = createServer((socket) => socket.end('hello from outside\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await launcher.close();
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

let call = 0;
function sh(sandbox: RunSandbox, script: string): Promise<CommandResult> {
  call += 1;
  return runCommand({
    file: 'sh',
    args: ['-c', script],
    cwd: workspace,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdoutFile: join(root, `call-${call}.out`),
    stderrFile: join(root, `call-${call}.err`),
    launcher,
    sandbox,
  });
}

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
  it('writes the workspace, but nothing outside it and nothing under .delta/', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const result = await sh(
        sandbox,
        [
          'echo made > made.txt',
          `echo no > ${outside}/new.txt; rm -f ${outside}/kept.txt`,
          'echo no > .delta/new.txt; echo overwritten > .delta/journal.jsonl; rm -rf .delta; rm -rf ./.delta/journal.jsonl',
          `touch /etc/delta-sandbox-test 2>/dev/null; echo "home: $(touch "$HOME/delta-sandbox-test" 2>&1 | grep -c Read-only)"`,
          'echo tmp > /tmp/run-private.txt',
          'true',
        ].join('\n'),
      );
      expect(result.exitCode).toBe(0);
      expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
      expect(existsSync(join(outside, 'new.txt'))).toBe(false);
      expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('kept\n');
      expect(readdirSync(control)).toEqual(['journal.jsonl']);
      expect(readFileSync(join(control, 'journal.jsonl'), 'utf8')).toBe('the journal\n');
      expect(existsSync('/etc/delta-sandbox-test')).toBe(false);
      // /tmp is the run's own: not the machine's, and shared by the run's calls.
      expect(existsSync('/tmp/run-private.txt')).toBe(false);
      expect(readFileSync(join(sandbox.tmpDir, 'run-private.txt'), 'utf8')).toBe('tmp\n');
      expect((await sh(sandbox, 'cat /tmp/run-private.txt')).stdout.head).toBe('tmp\n');
      expect(readFileSync(join(root, `call-${call - 1}.err`), 'utf8')).toMatch(/Read-only file system/);
    } finally {
      await sandbox.stop();
    }
  });

  it("sees none of the engine's processes, only the run's own", async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const result = await sh(
        sandbox,
        `for p in /proc/[0-9]*; do echo "\${p#/proc/} $(tr '\\0' ' ' < $p/cmdline)"; done; test -e /proc/${process.pid} && echo ENGINE-"VISIBLE"`,
      );
      const lines = result.stdout.head.trim().split('\n');
      expect(result.stdout.head).not.toContain('ENGINE-VISIBLE');
      // The sandbox's bubblewrap (pid 1), the launcher inside it (which has the tools' rights), the tool's
      // shell and what it runs: nothing else.
      expect(lines[0]).toMatch(/^1 \S*bwrap /);
      expect(lines).toContainEqual(expect.stringMatching(/^2 delta-sandbox-launcher\s*$/));
      for (const line of lines) expect(line).toMatch(/^\d+ (\S*bwrap |delta-sandbox-launcher|cat |sh -c |tr )/);
      // (bubblewrap's command line names the node it runs the launcher with; no other process is node)
      expect(lines.filter((line) => !line.startsWith('1 ')).join('\n')).not.toMatch(/node|vitest|delta-launcher/);
      expect(lines.join('\n')).not.toMatch(/vitest|delta-launcher/);
    } finally {
      await sandbox.stop();
    }
  });

  const connect = `node -e 'require("net").connect(${'${PORT}'}, "127.0.0.1").on("data", (d) => { process.stdout.write(d); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(3) })'`;
  it('reaches a loopback server outside the sandbox only when the network is on', async () => {
    for (const network of [true, false]) {
      const sandbox = RunSandbox.start(policy(network), bubblewrap.path!);
      try {
        const result = await sh(sandbox, connect.replace('${PORT}', String(port)));
        if (network) expect(result.stdout.head).toBe('hello from outside\n');
        else {
          expect(result.exitCode).toBe(3);
          expect(result.stdout.head).toBe('ECONNREFUSED\n');
        }
      } finally {
        await sandbox.stop();
      }
    }
  });

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

  it("leaves no tool a way to a finished call's output, nor to anything else under .delta/", async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const first = await sh(sandbox, 'echo first');
      const firstFile = join(root, `call-${call}.out`);
      expect(readFileSync(firstFile, 'utf8')).toBe('first\n');
      // Every file any process in there has open, and every output name: written to where possible.
      const second = await sh(
        sandbox,
        [
          `for f in /proc/[0-9]*/fd/* /proc/[0-9]*/cwd /proc/[0-9]*/root; do echo "$(readlink $f)"; done | sort -u > ${workspace}/open.txt`,
          'for f in /proc/[0-9]*/fd/[3-9]* /tmp/.delta-io/*; do echo overwritten > $f; done 2>/dev/null',
          `rmdir /tmp/.delta-io 2>/dev/null || mv /tmp/.delta-io /tmp/moved 2>/dev/null || echo kept > ${workspace}/kept.txt`,
        ].join('\n'),
      );
      expect(first.exitCode).toBe(0);
      expect(second.exitCode).toBe(0);
      // The output directory is a mount point: no tool can move it away and put a link in its place.
      expect(readFileSync(join(workspace, 'kept.txt'), 'utf8')).toBe('kept\n');
      expect(readFileSync(firstFile, 'utf8')).toBe('first\n');
      expect(readdirSync(control)).toEqual(['journal.jsonl']);
      // Open in there: nothing under .delta/ nor anywhere in this test's directory but the workspace, and
      // of the outputs only the call's own two (by their names in there).
      const open = readFileSync(join(workspace, 'open.txt'), 'utf8').split('\n');
      expect(open.filter((path) => path.startsWith(root) && path !== workspace && path !== join(workspace, 'open.txt'))).toEqual([]);
      expect(open.filter((path) => path.startsWith('/tmp/.delta-io/'))).toHaveLength(2);
      expect(open).toContain('/');
    } finally {
      await sandbox.stop();
    }
  });

  it('stops a call at its timeout through the launcher inside, with everything in its process group', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      // Once the sandbox runs (its start is not the call's time).
      await sh(sandbox, 'true');
      call += 1;
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

  it('ends the sandbox when a stopped call is never reported ended (a tool stopped the launcher)', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      call += 1;
      const marker = join(workspace, 'launcher-stopped');
      const abort = new AbortController();
      const running = runCommand({
        file: 'sh',
        args: [
          '-c',
          `for p in /proc/[0-9]*; do case "$(tr -d '\\0' < $p/cmdline)" in delta-sandbox-launcher*) kill -STOP \${p#/proc/};; esac; done; touch ${marker}; sleep 600`,
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
      // The launcher itself, not a watcher of a call that is just ending (a fork of it, with its name).
      const frozen = processesIn(namespace).filter(
        (pid) =>
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('delta-sandbox-launcher') &&
          !readFileSync(`/proc/${readProcessStat(pid)!.parentPid}/cmdline`, 'utf8').startsWith('delta-sandbox-launcher'),
      );
      expect(frozen).toHaveLength(1);
      process.kill(frozen[0]!, 'SIGSTOP');
      call += 1;
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

  it('copies the output of a record on another file system, never through a link a tool put there', async () => {
    const other = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/delta-sandbox-test-') : undefined;
    if (other === undefined || statSync(other).dev === statSync(tmpdir()).dev) {
      console.warn('!!! SKIPPING the cross-file-system output test: /dev/shm is missing or on the file system of the temp directory');
      return;
    }
    // A file the tools cannot see (the machine's temp directory is not the sandbox's /tmp).
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'secret\n');
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const run = (script: string, name: string) =>
        runCommand({
          file: 'sh',
          args: ['-c', script],
          cwd: workspace,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stdoutFile: join(other, `${name}.out`),
          stderrFile: join(other, `${name}.err`),
          launcher,
          sandbox,
        });
      expect((await run('echo copied; echo oops >&2', 'plain')).stdout.head).toBe('copied\n');
      expect(readFileSync(join(other, 'plain.out'), 'utf8')).toBe('copied\n');
      expect(readFileSync(join(other, 'plain.err'), 'utf8')).toBe('oops\n');
      const hostile = await run(
        `cat ${secret} 2>/dev/null; for f in /tmp/.delta-io/*; do rm -f $f; ln -s ${secret} $f; done; echo replaced`,
        'hostile',
      );
      expect(hostile.exitCode).toBe(0);
      expect(readFileSync(join(other, 'hostile.out'), 'utf8')).not.toContain('secret');
    } finally {
      await sandbox.stop();
      rmSync(other, { recursive: true, force: true });
    }
  });

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
      call += 1;
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
