// @ts-check
// The session process of an interpreter session: `node supervisor.js <session-dir>`, started
// detached (its own process group) by startSession. It owns the interpreter's stdin, stdout and
// stderr, listens on a unix socket, and runs one exec at a time. Plain JavaScript so that node runs
// it from source (tests) and from dist alike; tsc checks it through checkJs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CappedOutput } from './capped-output.js';
import { MarkerScanner } from './marker-scanner.js';
import { encodeRequest, interpreterArgv, interpreterFlavour } from './repl-drivers.js';

/** How long an interrupted interpreter gets to come back before it is killed. */
const interruptGraceMs = 2_000;
const startTimeoutMs = 15_000;

/**
 * @typedef {{ code: string, timeout_ms: number, max_output_bytes: number }} ExecRequest
 * @typedef {{ ok: true, result: { stdout: string, stderr: string, exit_code: number, execution_time_ms: number } }
 *   | { ok: false, error: { code: string, message: string, stdout?: string, stderr?: string } }} ExecResponse
 * @typedef {{ stdout: MarkerScanner, stderr: MarkerScanner, finish: (reason?: string) => void }} RunningExec
 */

const sessionDirectory = process.argv[2] ?? '';
/** @type {{ argv: string[], work_dir: string, socket_path: string }} */
const metadata = JSON.parse(readFileSync(join(sessionDirectory, 'metadata.json'), 'utf8'));
const flavour = interpreterFlavour(metadata.argv[0] ?? '');
const [file = '', ...args] = interpreterArgv(metadata.argv);

// The start command reads one line from our stdout, then goes away: never fail on a closed pipe.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);
// A timeout interrupts the whole process group, ourselves included; only the interpreter should stop.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => shutdown(0));

/** @param {object} message */
function report(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

const interpreter = spawn(file, args, { cwd: metadata.work_dir, stdio: ['pipe', 'pipe', 'pipe'] });
/** @type {RunningExec | undefined} */
let running;
let exited = false;

interpreter.stdin.on('error', () => undefined);
interpreter.stdout.on('data', (chunk) => running?.stdout.push(chunk));
interpreter.stderr.on('data', (chunk) => running?.stderr.push(chunk));
interpreter.on('error', (error) => {
  report({ error: { code: 'COMMAND_NOT_FOUND', message: `Could not start ${file}: ${error.message}` } });
  shutdown(1);
});
interpreter.on('exit', (code, signal) => {
  exited = true;
  const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
  running?.finish(`the interpreter ${how}`);
  // Give the socket a moment to carry that answer before the process ends.
  setTimeout(() => shutdown(0), 100);
});

/**
 * Sends one block of code and collects its output up to the end markers.
 * @param {ExecRequest} request
 * @returns {Promise<ExecResponse>}
 */
function runExec(request) {
  if (exited) return Promise.resolve({ ok: false, error: { code: 'SESSION_DEAD', message: 'The interpreter has exited.' } });
  return new Promise((resolve) => {
    const marker = `__DELTA_SESSIONS_${randomBytes(12).toString('hex')}__`;
    const stdout = new CappedOutput(request.max_output_bytes);
    const stderr = new CappedOutput(request.max_output_bytes);
    const started = performance.now();
    let timedOut = false;
    /** @type {NodeJS.Timeout | undefined} */
    let killTimer;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-process.pid, 'SIGINT');
      } catch {
        interpreter.kill('SIGINT');
      }
      killTimer = setTimeout(() => interpreter.kill('SIGKILL'), interruptGraceMs);
    }, request.timeout_ms);

    /** @param {string} [death] why the interpreter went away, when it did */
    const finish = (death) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      running = undefined;
      if (death) {
        current.stdout.flush();
        current.stderr.flush();
      }
      const output = { stdout: stdout.text(), stderr: stderr.text() };
      const elapsed = Math.round(performance.now() - started);
      if (timedOut) {
        const after = death
          ? `did not stop when interrupted, so ${death}; the session is dead, start a new one`
          : 'was interrupted; the session is still usable';
        resolve({
          ok: false,
          error: { code: 'EXEC_TIMEOUT', message: `The code ran longer than ${request.timeout_ms} ms and ${after}.`, ...output },
        });
      } else if (death) {
        resolve({
          ok: false,
          error: { code: 'SESSION_DEAD', message: `While running this code ${death}; the session is dead, start a new one.`, ...output },
        });
      } else {
        const exitCode = Number.parseInt(current.stdout.trailer.replace(/^:/, ''), 10);
        resolve({ ok: true, result: { ...output, exit_code: Number.isNaN(exitCode) ? 0 : exitCode, execution_time_ms: elapsed } });
      }
    };
    const settleIfDone = () => {
      if (current.stdout.done && current.stderr.done) finish();
    };
    /** @type {RunningExec} */
    const current = {
      stdout: new MarkerScanner(marker, (bytes) => stdout.push(bytes), settleIfDone),
      stderr: new MarkerScanner(marker, (bytes) => stderr.push(bytes), settleIfDone),
      finish,
    };
    running = current;
    interpreter.stdin.write(encodeRequest(flavour, marker, request.code));
  });
}

let queue = Promise.resolve();

/**
 * Execs run strictly one after another, whoever sends them.
 * @param {ExecRequest} request
 * @returns {Promise<ExecResponse>}
 */
function enqueue(request) {
  const result = queue.then(() => runExec(request));
  queue = result.then(() => undefined);
  return result;
}

const server = createServer((socket) => {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('error', () => undefined);
  socket.on('data', (data) => {
    buffered += data;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      handle(line).then(
        (response) => socket.write(`${JSON.stringify(response)}\n`),
        (error) => socket.write(`${JSON.stringify({ ok: false, error: { code: 'INTERNAL', message: String(error) } })}\n`),
      );
    }
  });
});

/** @param {string} line */
async function handle(line) {
  // Not safeParseJson: a bad request gets an error reply; this script loads node built-ins and its own files alone.
  try {
    const request = JSON.parse(line);
    if (request.type === 'ping') return { ok: true, pid: process.pid, interpreter_pid: interpreter.pid };
    if (request.type === 'exec') return await enqueue(request);
    return { ok: false, error: { code: 'INVALID_ARGUMENT', message: `Unknown request type ${JSON.stringify(request.type)}.` } };
  } catch (error) {
    return { ok: false, error: { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) } };
  }
}

/** @param {number} code */
function shutdown(code) {
  server.close();
  rmSync(metadata.socket_path, { force: true });
  if (!exited) interpreter.kill('SIGKILL');
  process.exit(code);
}

async function main() {
  rmSync(metadata.socket_path, { force: true });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(metadata.socket_path, () => resolve(undefined));
  });
  // A first, empty exec proves the interpreter is up and speaks the protocol.
  const warmUp = await enqueue({ code: '', timeout_ms: startTimeoutMs, max_output_bytes: 64 * 1024 });
  if (!warmUp.ok) {
    const { stderr = '', message } = warmUp.error;
    report({
      error: { code: 'START_FAILED', message: `${file} did not start as an interpreter session: ${message}${stderr ? `\n${stderr}` : ''}` },
    });
    shutdown(1);
    return;
  }
  report({ ready: true, pid: process.pid, interpreter_pid: interpreter.pid });
}

main().catch((error) => {
  report({ error: { code: 'START_FAILED', message: error instanceof Error ? error.message : String(error) } });
  shutdown(1);
});
