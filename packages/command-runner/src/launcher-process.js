// @ts-check
// The tool launcher's own program (see CommandLauncher in launcher.ts): `node launcher-process.js`, a
// small long-lived process that starts commands on the engine's behalf. Plain JavaScript so that node runs
// it from the sources (tests) as from dist/ and from a bundle that inlines this package (the delta CLI
// builds it as a second entry next to its chunks); tsc checks it through checkJs.
//
// Protocol: one JSON object per line in each direction, handled in order.
//   in:  { id, file, args, cwd, env, stdin?, stdoutFile, stderrFile, processFile?, inheritFiles? }   start a command
//        { id, sync: true }               answer { id, synced: true } once everything before it is done
//        { id, kill: signal }             send signal to the process group of command id, if it still runs
//   out: { id, pid }                      once the command has started
//        { id, exit: code, signal }       when it has exited
//        { id, error: { code, message } } when it could not be started (then nothing else for this id)
//        { id, writeError: message, code, file }  when command id's processFile could not be written (code: the errno code)
// The launcher opens the two output files itself, starts the command without a shell in its own process
// group, writes its pid and start time to processFile (as runCommand does), writes stdin, and reports;
// once the command has exited, whatever is left in its process group is killed.
// Once its stdin closes it exits as soon as no command is running.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { writeProcessFile } from '@delta/process-identity';

/**
 * @typedef {{ id: number, file: string, args: string[], cwd: string, env: Record<string, string>,
 *   stdin?: string, stdoutFile: string, stderrFile: string, processFile?: string, inheritFiles?: string[] }} LaunchMessage
 * @typedef {LaunchMessage | { id: number, sync: true } | { id: number, kill: NodeJS.Signals }} Message
 */

/** O_CLOEXEC, as /proc/<pid>/fdinfo/<fd> shows it in its octal `flags:`. */
const CLOSE_ON_EXEC = 0o2000000;

/**
 * Closes every descriptor above 2 this process inherited open across exec: whatever its starter left open
 * (a CI runner, a supervisor, a shell redirection, bubblewrap's caller) would otherwise reach every
 * command started from here, tools in the sandbox included (a file under the real /tmp, a host file to
 * write). The launcher needs none: node's own descriptors are all close-on-exec, and so left alone.
 */
function closeInheritedDescriptors() {
  let fds;
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return;
  }
  for (const name of fds) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & CLOSE_ON_EXEC) === 0) closeSync(fd);
    } catch {
      // Gone already (the directory listing's own descriptor).
    }
  }
}
closeInheritedDescriptors();

// What ps and top show, rather than the node command line.
process.title = 'delta-launcher';
// The launcher runs in its own process group; a stray terminal signal must not end it early.
for (const signal of /** @type {const} */ (['SIGINT', 'SIGHUP', 'SIGQUIT'])) process.on(signal, () => undefined);

/** @param {object} message */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

/** @param {unknown} error */
function describe(error) {
  const { code, message } = /** @type {{ code?: unknown, message?: unknown }} */ (error ?? {});
  return { code: typeof code === 'string' ? code : undefined, message: String(message ?? error) };
}

/**
 * @param {number} pid
 * @param {NodeJS.Signals} signal
 */
function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Nothing was left in the group.
  }
}

let running = 0;
let closed = false;
/** @type {Map<number, number>} the pid of each command still running, by id */
const children = new Map();

/** @param {LaunchMessage} request */
function launch(request) {
  const { id } = request;
  /** @type {number | undefined} */
  let stdoutFd;
  /** @type {number | undefined} */
  let stderrFd;
  /** @type {number[]} files given to the command as fds 3, 4, … (a sandboxed command's namespaces) */
  const inherited = [];
  /** @type {import('node:child_process').ChildProcess} */
  let child;
  try {
    stdoutFd = openSync(request.stdoutFile, 'w');
    stderrFd = openSync(request.stderrFile, 'w');
    for (const file of request.inheritFiles ?? []) inherited.push(openSync(file, 'r'));
    child = spawn(request.file, request.args, {
      cwd: request.cwd,
      env: request.env,
      detached: true,
      stdio: [typeof request.stdin === 'string' ? 'pipe' : 'ignore', stdoutFd, stderrFd, ...inherited],
    });
  } catch (error) {
    send({ id, error: describe(error) });
    return;
  } finally {
    // The command holds its own copies.
    if (stdoutFd !== undefined) closeSync(stdoutFd);
    if (stderrFd !== undefined) closeSync(stderrFd);
    for (const fd of inherited) closeSync(fd);
  }
  let done = false;
  running += 1;
  if (child.pid !== undefined) children.set(id, child.pid);
  /** @param {object} message */
  const finish = (message) => {
    if (done) return;
    done = true;
    children.delete(id);
    send(message);
    running -= 1;
    if (closed && running === 0) process.exit(0);
  };
  child.once('error', (error) => finish({ id, error: describe(error) }));
  child.once('exit', (code, signal) => {
    // No process outlives the command that started it: what it left running in its process group
    // (background jobs, a server it forked) is stopped now. A process that left the group (setsid) is not
    // reached here; a sandboxed run's PID namespace ends those with the run.
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    finish({ id, exit: code, signal });
  });
  if (child.pid !== undefined) {
    if (request.processFile) {
      try {
        writeProcessFile(request.processFile, child.pid);
      } catch (error) {
        send({ id, writeError: describe(error).message, code: describe(error).code, file: request.processFile });
      }
    }
    send({ id, pid: child.pid });
  }
  if (child.stdin) {
    // A command that exits without reading its input is not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(request.stdin);
  }
}

/** @param {Message} message */
function handle(message) {
  if ('sync' in message) send({ id: message.id, synced: true });
  else if ('kill' in message) {
    const pid = children.get(message.id);
    if (pid !== undefined) signalGroup(pid, message.kill);
  } else launch(message);
}

/** The start of a line whose end has not arrived yet, in pieces: a new chunk is searched alone for its end. */
/** @type {string[]} */
const pending = [];
process.stdin.setEncoding('utf8');
process.stdin.on('data', (/** @type {string} */ chunk) => {
  let start = 0;
  for (let end = chunk.indexOf('\n'); end >= 0; end = chunk.indexOf('\n', start)) {
    pending.push(chunk.slice(start, end));
    const line = pending.join('');
    pending.length = 0;
    start = end + 1;
    if (line !== '') handle(JSON.parse(line));
  }
  if (start < chunk.length) pending.push(chunk.slice(start));
});
process.stdin.on('end', () => {
  closed = true;
  if (running === 0) process.exit(0);
});
