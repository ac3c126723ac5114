import { createConnection } from 'node:net';
import { parseSessionJson, type SupervisorResponse, SupervisorResponseShape } from './json-shapes.js';
import { SessionError, type SessionErrorCode } from './session-error.js';
import type { ExecResult } from './types.js';

interface ExecRequest {
  type: 'exec';
  code: string;
  timeout_ms: number;
  max_output_bytes: number;
}

/** Sends one exec to the supervisor over its socket and waits for its one-line answer. */
export async function execInInterpreter(socketPath: string, sessionId: string, request: ExecRequest): Promise<ExecResult> {
  const response = await new Promise<SupervisorResponse>((resolve, reject) => {
    const dead = (why: string) =>
      new SessionError(`Session ${sessionId} is dead: ${why}. Its state is lost; end it and start a new one.`, { code: 'SESSION_DEAD' });
    const socket = createConnection(socketPath);
    let buffered = '';
    let answered = false;
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (data: string) => {
      buffered += data;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      answered = true;
      socket.end();
      try {
        resolve(parseSessionJson(buffered.slice(0, newline), `the answer of session ${sessionId}'s process`, SupervisorResponseShape));
      } catch (error) {
        reject(error);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) reject(dead(`its session process does not answer (${error.code ?? error.message})`));
    });
    socket.on('close', () => {
      if (!answered) reject(dead('its session process went away during the exec'));
    });
  });
  if (response.ok) return response.result;
  const { code, message, stdout, stderr } = response.error;
  const options: { code: SessionErrorCode; stdout?: string; stderr?: string } = { code };
  if (stdout !== undefined) options.stdout = stdout;
  if (stderr !== undefined) options.stderr = stderr;
  throw new SessionError(code === 'SESSION_DEAD' ? `Session ${sessionId}: ${message}` : message, options);
}
