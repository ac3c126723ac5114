import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopProcessGroup } from '@delta/command-runner';
import { parseSessionJson, SupervisorReportShape } from './json-shapes.js';
import { SessionError } from './session-error.js';
import { type ProcessClaim, proveSessionProcess, sessionDirectoryVariable, sessionMarkerVariable } from './session-proof.js';
import type { SessionMetadata } from './types.js';

/** Unix socket paths are limited to about 104 bytes; longer ones go to the temporary directory. */
const maxSocketPathBytes = 100;

export function socketPathFor(sessionDirectory: string): string {
  const inside = join(sessionDirectory, 'repl.sock');
  if (Buffer.byteLength(inside) <= maxSocketPathBytes) return inside;
  const hash = createHash('sha256').update(sessionDirectory).digest('hex').slice(0, 16);
  return join(tmpdir(), `delta-sessions-${hash}.sock`);
}

/**
 * supervisor.js sits next to this module: in src (tests), in the package's dist, and next to
 * a bundle that inlines this package (the delta-sessions CLI builds it as a second entry).
 */
function supervisorPath(): string {
  const path = fileURLToPath(new URL('./supervisor.js', import.meta.url));
  if (!existsSync(path)) {
    throw new SessionError(`The session supervisor is missing: expected ${path}. Rebuild the package that bundles @delta/sessions.`, {
      code: 'INTERNAL',
    });
  }
  return path;
}

export interface SupervisorStarted {
  pid: number;
  interpreterPid: number;
}

/**
 * Starts the supervisor detached (a new process group that outlives the caller) and waits for its
 * one-line report: ready, or why the interpreter could not start. The session's marker and the real path
 * of its directory go into its environment, and from there into the interpreter's: what later proves they
 * are this session's.
 */
export async function startSupervisor(
  sessionDirectory: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  marker: string,
): Promise<SupervisorStarted> {
  const child = spawn(process.execPath, [supervisorPath(), sessionDirectory], {
    cwd,
    env: { ...env, [sessionMarkerVariable]: marker, [sessionDirectoryVariable]: realpathSync(sessionDirectory) },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (data: string) => {
    if (stderr.length < 64 * 1024) stderr += data;
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(
        () => reject(new SessionError(`The session did not become ready within ${timeoutMs} ms.`, { code: 'START_FAILED' })),
        timeoutMs,
      );
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (data: string) => {
        stdout += data;
        const newline = stdout.indexOf('\n');
        if (newline >= 0) {
          clearTimeout(timer);
          resolve(stdout.slice(0, newline));
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new SessionError(`Could not start the session supervisor: ${error.message}`, { code: 'START_FAILED', cause: error }));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        setTimeout(
          () =>
            reject(
              new SessionError(`The session supervisor exited with code ${code} before it was ready.${stderr ? `\n${stderr}` : ''}`, {
                code: 'START_FAILED',
              }),
            ),
          20,
        );
      });
    });
    const report = parseSessionJson(line, "the session supervisor's report", SupervisorReportShape);
    if ('error' in report) throw new SessionError(report.error.message, { code: report.error.code });
    return { pid: report.pid, interpreterPid: report.interpreter_pid };
  } catch (error) {
    if (child.pid !== undefined) await stopProcessGroup(child.pid);
    throw error;
  } finally {
    child.stdout.destroy();
    child.stderr.destroy();
    child.unref();
  }
}

/** Whether the supervisor of this session is running, proven to be the session's (not a recycled or forged pid). */
export function isSupervisorAlive(metadata: SessionMetadata, directory: string): boolean {
  return proveSessionProcess(supervisorClaim(metadata, directory)).proven;
}

/** What metadata.json (in `directory`) claims about the supervisor, to be proven by the process itself. */
export function supervisorClaim(metadata: SessionMetadata, directory: string): ProcessClaim {
  return { pid: metadata.pid, startTicks: metadata.start_ticks, marker: metadata.marker, directory, groupLeader: true };
}

/** What metadata.json (in `directory`) claims about the interpreter. */
export function interpreterClaim(metadata: SessionMetadata, directory: string): ProcessClaim {
  return { pid: metadata.interpreter_pid, startTicks: metadata.interpreter_start_ticks, marker: metadata.marker, directory };
}
