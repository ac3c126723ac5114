import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Invocation } from '../src/index.js';

export const ECHO_ARGV = fileURLToPath(new URL('./fixtures/echo-argv.mjs', import.meta.url));

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
  const marker = join(dir, 'marker');
  writeFileSync(marker, 'still here\n');
  return { dir, marker };
}
