// What the run-sandbox test files share: real bubblewrap (or a loud skip), a workspace with a protected .delta/
// and a directory beside it, a launcher and a loopback server outside the sandbox, and `sh` to run a call.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandLauncher, type RunSandbox, runCommand, type CommandResult, type SandboxPolicy } from '../index.js';
import { bubblewrapForTests } from './sandbox.test-support.js';

export const bubblewrap = bubblewrapForTests('the sandbox tests');
export const skip = bubblewrap.skip;

export const root = mkdtempSync(join(tmpdir(), 'delta-sandbox-test-'));
export const workspace = join(root, 'workspace');
export const control = join(workspace, '.delta');
export const outside = join(root, 'outside');
for (const dir of [workspace, control, outside]) mkdirSync(dir, { recursive: true });
writeFileSync(join(control, 'journal.jsonl'), 'the journal\n');
writeFileSync(join(outside, 'kept.txt'), 'kept\n');

export const policy = (network: boolean): SandboxPolicy => ({
  mode: 'workspace-write',
  network,
  workspace,
  protectedPaths: [control],
  visiblePaths: [],
  writablePaths: [],
});

export let launcher: CommandLauncher;
let server: Server;
export let port = 0;

/** Starts the launcher and the loopback server (a beforeAll). */
export async function startLauncherAndServer(): Promise<void> {
  launcher = CommandLauncher.start();
  // A loopback server outside the sandbox.
  server = createServer((socket) => socket.end('hello from outside\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
}

/** Stops them and removes the test directory (an afterAll). */
export async function stopLauncherAndServer(): Promise<void> {
  await launcher.close();
  await new Promise((resolve) => server.close(resolve));
  rmSync(root, { recursive: true, force: true });
}

/** The number of the latest call: its outputs are `call-<n>.out` and `call-<n>.err` in `root`. */
export let call = 0;

/** Counts a call a test makes without `sh`, which names its outputs after `call`. */
export function nextCall(): void {
  call += 1;
}

export function sh(sandbox: RunSandbox, script: string): Promise<CommandResult> {
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
