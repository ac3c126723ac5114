/**
 * The program of the launcher process (see CommandLauncher), run as `node -e`. It is kept as source text
 * rather than a file so that it works the same from the sources, a package's dist/ and a bundled CLI.
 *
 * Protocol: one JSON object per line in each direction, handled in order.
 *   in:  { id, file, args, cwd, env, stdin?, stdoutFile, stderrFile, processFile? }   start a command
 *        { id, write: [file, text] }      write a small file (a record the engine does not wait for)
 *        { id, sync: true }               answer { id, synced: true } once everything before it is done
 *   out: { id, pid }                      once the command has started
 *        { id, exit: code, signal }       when it has exited
 *        { id, error: { code, message } } when it could not be started (then nothing else for this id)
 *        { id, writeError: message }      when a write failed
 * The launcher opens the two output files itself, starts the command without a shell in its own process
 * group, writes its pid and start time to processFile (as runCommand does), writes stdin, and reports. Once its stdin closes it exits as soon as no command is running.
 */
export const LAUNCHER_SCRIPT = String.raw`
'use strict';
// What ps and top show, rather than this whole program.
process.title = 'delta-launcher';
const { spawn } = require('node:child_process');
const { openSync, closeSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
// The launcher runs in its own process group; a stray terminal signal must not end it early.
for (const signal of ['SIGINT', 'SIGHUP', 'SIGQUIT']) process.on(signal, () => undefined);
const send = (message) => process.stdout.write(JSON.stringify(message) + '\n');
const failure = (error) => ({ code: typeof error.code === 'string' ? error.code : undefined, message: String(error.message || error) });

/** { pid, start_ticks } as runCommand writes it: field 22 of /proc/<pid>/stat, when there is one. */
function writeProcessFile(file, pid, id) {
  let ticks;
  try {
    const stat = readFileSync('/proc/' + pid + '/stat', 'utf8');
    ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    ticks = undefined;
  }
  try {
    writeFileSync(file, JSON.stringify(ticks === undefined ? { pid } : { pid, start_ticks: ticks }) + '\n');
  } catch (error) {
    send({ id, writeError: String(error.message || error) });
  }
}

let running = 0;
let closed = false;

function launch(request) {
  const { id } = request;
  let stdoutFd;
  let stderrFd;
  let child;
  try {
    stdoutFd = openSync(request.stdoutFile, 'w');
    stderrFd = openSync(request.stderrFile, 'w');
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: [typeof request.stdin === 'string' ? 'pipe' : 'ignore', stdoutFd, stderrFd],
    });
  } catch (error) {
    send({ id, error: failure(error) });
    return;
  } finally {
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    if (stderrFd !== undefined) closeSync(stderrFd);
  }
  let done = false;
  running += 1;
  const finish = (message) => {
    if (done) return;
    done = true;
    send(message);
    running -= 1;
    if (closed && running === 0) process.exit(0);
  };
  child.once('error', (error) => finish({ id, error: failure(error) }));
  child.once('exit', (code, signal) => finish({ id, exit: code, signal }));
  if (child.pid !== undefined) {
    if (request.processFile) writeProcessFile(request.processFile, child.pid, id);
    send({ id, pid: child.pid });
  }
  if (child.stdin) {
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin);
  }
}

let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (line === '') continue;
    const request = JSON.parse(line);
    if (request.sync) {
      send({ id: request.id, synced: true });
    } else if (request.write) {
      try {
        // Whole or not at all: if this launcher dies, the engine writes what it may not have written.
        const temporary = request.write[0] + '.' + process.pid + '.tmp';
        writeFileSync(temporary, request.write[1]);
        renameSync(temporary, request.write[0]);
      } catch (error) {
        send({ id: request.id, writeError: String(error.message || error) });
      }
    } else {
      launch(request);
    }
  }
});
process.stdin.on('end', () => {
  closed = true;
  if (running === 0) process.exit(0);
});
`;
