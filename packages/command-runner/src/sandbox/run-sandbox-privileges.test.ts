// The sandbox holds for its caller, root included (issue 32): from a tool call and from a command of its
// own (RunSandbox.wrap, as an MCP server runs), no capability, no remount of / or .delta/, no user
// namespace, and, with the network off, no unix socket of this machine; its own sockets work. The same
// attacks through the real `delta` binary, as root and as nobody: apps/delta-cli/src/sandbox-escape.e2e.test.ts.
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Writable } from 'node:stream';
import { CommandLauncher, RunSandbox, runCommand, type SandboxPolicy } from '../index.js';
import type { SandboxedCommand } from './run-sandbox.js';
import { bubblewrapForTests, processesRunning, until } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox privilege tests');
const skip = bubblewrap.skip;

const root = mkdtempSync(join(tmpdir(), 'delta-sandbox-privileges-'));
const workspace = join(root, 'workspace');
const control = join(workspace, '.delta');
mkdirSync(control, { recursive: true });
writeFileSync(join(control, 'journal.jsonl'), 'the journal\n');
// Outside /tmp, which the sandbox replaces: it would see this directory as it is.
const outside = mkdtempSync('/var/tmp/delta-sandbox-privileges-');
chmodSync(outside, 0o777);

const policy: SandboxPolicy = {
  mode: 'workspace-write',
  network: false,
  workspace,
  protectedPaths: [control],
  visiblePaths: [],
  writablePaths: [],
};

const ATTACK = `
echo "capeff=$(awk '/^CapEff/ {print $2}' /proc/self/status)"
echo "nonewprivs=$(awk '/^NoNewPrivs/ {print $2}' /proc/self/status)"
mount -o remount,bind,rw / 2>/dev/null && echo "remount-root=succeeded" || echo "remount-root=refused"
mount -o remount,bind,rw ${control} 2>/dev/null && echo "remount-delta=succeeded" || echo "remount-delta=refused"
{ echo forged >> ${control}/journal.jsonl; } 2>/dev/null && echo "forge=appended" || echo "forge=refused"
unshare -U true 2>/dev/null && echo "userns=created" || echo "userns=refused"
setid=${workspace}/setid-$$
touch $setid && chmod 755 $setid && chmod u+s $setid 2>/dev/null; [ -u $setid ] && echo "chmod-setuid=set" || echo "chmod-setuid=refused"
python3 -c 'import os, sys; os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o6755)' $setid-created 2>/dev/null; [ -u $setid-created ] && echo "create-setuid=set" || echo "create-setuid=refused"
rm -f $setid $setid-created
connect='require("net").connect(process.argv[1]).on("data", (d) => { console.log(String(d).trim()); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(0) })'
for socket in ${workspace}/host.sock ${outside}/host.sock; do echo "socket $socket=$(node -e "$connect" $socket)"; done
own=/tmp/own-$$.sock
node -e 'require("net").createServer((s) => s.end("own\\n")).listen(process.argv[1])' $own & server=$!
while [ ! -S $own ]; do sleep 0.01; done
echo "own-socket=$(node -e "$connect" $own)"
kill $server
`;

const expected = [
  'capeff=0000000000000000',
  'nonewprivs=1',
  'remount-root=refused',
  'remount-delta=refused',
  'forge=refused',
  'userns=refused',
  'chmod-setuid=refused',
  'create-setuid=refused',
  `socket ${workspace}/host.sock=ECONNREFUSED`,
  `socket ${outside}/host.sock=ECONNREFUSED`,
  'own-socket=own',
];

let launcher: CommandLauncher;
const servers: Server[] = [];
let connections = 0;
beforeAll(async () => {
  launcher = CommandLauncher.start();
  // Two unix sockets of this machine that the sandbox would see, anyone may connect to.
  for (const path of [join(workspace, 'host.sock'), join(outside, 'host.sock')]) {
    const server = createServer((socket) => {
      connections += 1;
      socket.end('hello from outside\n');
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    chmodSync(path, 0o777);
    servers.push(server);
  }
});
afterAll(async () => {
  await launcher.close();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe.skipIf(skip)(`the sandbox, started by uid ${process.getuid?.()} (real bubblewrap, network off)`, () => {
  it('gives a tool call no capability, no remount, no user namespace and no unix socket outside', async () => {
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      const result = await runCommand({
        file: 'sh',
        args: ['-c', ATTACK],
        cwd: workspace,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        stdoutFile: join(root, 'tool.out'),
        stderrFile: join(root, 'tool.err'),
        launcher,
        sandbox,
      });
      expect(result.exitCode).toBe(0);
      expect(readFileSync(join(root, 'tool.out'), 'utf8').trim().split('\n')).toEqual(expected);
    } finally {
      await sandbox.stop();
    }
    expect(readFileSync(join(control, 'journal.jsonl'), 'utf8')).toBe('the journal\n');
    expect(connections).toBe(0);
  });

  it('gives a command of its own (as an MCP server runs) the same', async () => {
    const sandbox = RunSandbox.start(policy, bubblewrap.path!);
    try {
      const command = await sandbox.wrap('sh', ['-c', ATTACK], workspace);
      const child = spawnWrapped(command, ['ignore', 'pipe', 'pipe']);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      child.stderr!.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise((resolve) => child.once('close', resolve));
      expect(code, stderr).toBe(0);
      expect(stdout.trim().split('\n')).toEqual(expected);
    } finally {
      await sandbox.stop();
    }
    expect(readFileSync(join(control, 'journal.jsonl'), 'utf8')).toBe('the journal\n');
    expect(connections).toBe(0);
  });

  it('ends everything a command of its own started, a process that left its session too, when its bubblewrap is killed', async () => {
    const sandbox = RunSandbox.start({ ...policy, network: true }, bubblewrap.path!);
    const marker = String(700_000 + Math.floor(Math.random() * 100_000));
    try {
      const command = await sandbox.wrap(
        'sh',
        ['-c', `setsid sleep ${marker} < /dev/null > /dev/null 2>&1 & echo started; exec sleep 600`],
        workspace,
      );
      // As the MCP client starts a server: its own process group, which is what it kills.
      const child = spawnWrapped(command, ['ignore', 'pipe', 'ignore'], true);
      await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
      await until(() => processesRunning(['sleep', marker]).length === 1, 'the setsid sleep to start');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
      await until(() => processesRunning(['sleep', marker]).length === 0, 'the setsid sleep to end');
    } finally {
      await sandbox.stop();
    }
  });
});

/** Starts a command RunSandbox.wrap made as the MCP client does: its files and its data on the fds after stdio. */
function spawnWrapped(command: SandboxedCommand, stdio: Array<'ignore' | 'pipe'>, detached = false) {
  const inherited = command.inheritFiles.map((file) => openSync(file, 'r'));
  const child = spawn(command.file, command.args, {
    stdio: [...stdio, ...inherited, ...command.inheritData.map(() => 'pipe' as const)],
    detached,
  });
  for (const fd of inherited) closeSync(fd);
  command.inheritData.forEach((data, index) => {
    (child.stdio[3 + inherited.length + index] as Writable).end(data);
  });
  return child;
}
