import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Invocation } from '../src/index.js';

export const ECHO_ARGV = fileURLToPath(new URL('./fixtures/echo-argv.mjs', import.meta.url));

/** The same argv echo as a POSIX sh script: about a millisecond per run, for the large injection corpus. */
export const ECHO_ARGV_SH = fileURLToPath(new URL('./fixtures/echo-argv.sh', import.meta.url));

/** Reads echo-argv.sh's output: the arguments it received, and the rest (its stdin, then later output). */
export function parseEchoArgv(stdout: string): { argv: string[]; rest: string } {
  const fields = stdout.split('\0');
  const count = Number(fields[0]);
  return { argv: fields.slice(1, 1 + count), rest: fields.slice(1 + count).join('\0') };
}

export interface Outcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
}

/** Runs an invocation as the engine does: spawn without a shell, stdin written then closed. */
export function runInvocation(invocation: Invocation, cwd: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(invocation.file, invocation.args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ stdout, stderr, exitCode }));
    child.stdin.on('error', () => undefined); // a tool may exit without reading stdin
    child.stdin.end(invocation.stdin ?? '');
  });
}

/** A fresh temporary directory with a marker file that an injection would delete. */
export function workspaceWithMarker(): { dir: string; marker: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tool-expander-'));
  workspaces.push(dir);
  const marker = join(dir, 'marker');
  writeFileSync(marker, 'still here\n');
  return { dir, marker };
}

const workspaces: string[] = [];

/** Removes every workspace made so far (call in afterAll when tests run concurrently). */
export function removeWorkspaces(): void {
  for (const dir of workspaces.splice(0)) rmSync(dir, { recursive: true, force: true });
}
