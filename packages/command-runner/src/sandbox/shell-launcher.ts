import { existsSync } from 'node:fs';

/**
 * The run's sandbox launcher: a bash program, not a node one. It holds about 0.3 MB of its own memory
 * where a node launcher held 15 MB, which decides how many sandboxed runs one machine holds (see
 * docs/decisions/tool-launcher.md). It is bash reading its program from its stdin (SHELL_LAUNCHER_PROGRAM,
 * the functions below), then one message per line, each a call of one of them with every word quoted
 * by `shellWord`:
 *
 *   env N NAME=VALUE…  or  env N -f FILE         define environment N (sent once per distinct environment;
 *                                                 FILE: its NAME=VALUE pairs, each ended by a NUL byte)
 *   start ID CWD STDIN STDOUT STDERR N FILE ARG…  start a command with environment N (`encodeShellLaunch`)
 *   stop PID SIGNAL                               signal the process group PID
 *   sync ID                                       answer `S ID` (everything before it is done)
 *
 * and answers one line per event, each written whole (shorter than a pipe's atomic write):
 *
 *   P ID PID      the command started; PID is its process group, in the sandbox's PID namespace
 *   E ID STATUS   it ended: its exit code, or 128+N when a signal N ended it (what a shell reports)
 *   X ID CODE     it could not start: ENOENT (no such command or directory), EACCES (not executable),
 *                 EIO (an output or input file could not be opened)
 *   S ID
 *
 * Each command gets a watcher (a fork of this shell, with job control on, so that the command runs in a
 * process group of its own): it opens the three files (relative names are of the launcher's own directory,
 * which no tool can name: see RunSandbox), changes into CWD, sets the command's environment (nothing of the
 * launcher's own: every variable it had is unexported first), starts the command with `exec --` (no shell
 * in between, and the program exactly the one named, whatever its name holds), reports its pid, waits for
 * it, kills what it left in its process group, and reports its end. The launcher forgets each watcher as
 * it starts it (`disown -a`): bash kept every one in its table of jobs, and each call took longer than the one
 * before (2.1 ms at the first calls of the launcher alone, 5.3 ms at the 1,800th). LC_ALL=C, a variable of the launcher's
 * own (never exported: a command gets it only from its environment), keeps the watcher's bash in the C
 * locale whatever LANG the command is given, so that it does not load that locale's files for each call
 * (about 60 system calls; docs/decisions/step-latency.md). The launcher inherits no descriptor
 * beyond 0-2 (the loop at the start closes any that its starter left open), so a command inherits none
 * either.
 *
 * An environment bash cannot export as given (a name that is not an identifier, or one of bash's own, such
 * as UID) is refused before it is sent (`refuseUnexportable`). `_` is left out (see withoutUnderscore).
 */
export const SHELL_LAUNCHER_PROGRAM = `
for fd in /proc/self/fd/*; do
  fd=\${fd##*/}
  if [[ $fd -gt 2 ]]; then eval "exec $fd>&-" 2>/dev/null; fi
done
for name in $(compgen -e); do export -n "$name"; done
LC_ALL=C
env() {
  local -n pairs="env_$1"
  if [[ $2 == -f ]]; then
    mapfile -d '' -t pairs <"$3"
  else
    shift
    pairs=("$@")
  fi
}
start() {
  local id=$1 cwd=$2 in=$3 out=$4 err=$5
  local -n pairs="env_$6"
  shift 6
  (
    exec 2>/dev/null
    set -m
    exec 3<"$in" 4>"$out" 5>"$err" || { echo "X $id EIO"; exit; }
    cd -- "$cwd" || { echo "X $id ENOENT"; exit; }
    unset OLDPWD
    for pair in "\${pairs[@]}"; do export -- "$pair"; done
    if [[ $1 == */* ]]; then
      [[ -e $1 ]] || { echo "X $id ENOENT"; exit; }
      [[ -f $1 && -x $1 ]] || { echo "X $id EACCES"; exit; }
    elif ! type -P -- "$1" >/dev/null; then
      echo "X $id ENOENT"
      exit
    fi
    (exec -- "$@" <&3 >&4 2>&5 3<&- 4>&- 5>&-) &
    pid=$!
    exec 3<&- 4>&- 5>&-
    echo "P $id $pid"
    wait "$pid"
    status=$?
    kill -s KILL -- "-$pid"
    echo "E $id $status"
  ) &
  disown -a
}
stop() { kill -s "$2" -- "-$1" 2>/dev/null; }
sync() { echo "S $1"; }
`;

/**
 * The command that starts the launcher's program outside a sandbox (tests): this machine's bash, named
 * `delta-sandbox-launcher`, reading its program and then its messages from its stdin. In a sandbox it is
 * started from files of its own: launcher-files.ts.
 */
export function shellLauncherCommand(): string[] {
  const bash = findBash();
  return [bash, '--norc', '--noprofile', '-c', 'exec -a delta-sandbox-launcher "$0"', bash];
}

/**
 * A word of a message to the shell launcher: `$'…'`, with a backslash, a quote and every control
 * character escaped, so that no word holds a newline (one message per line) and eval reads it back as
 * it was. Throws on a NUL byte, which no argument or environment value can hold.
 */
export function shellWord(text: string): string {
  refuseNul(text);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped here
  return `$'${text.replace(/[\\'\x01-\x1f\x7f]/g, (char) => (char === '\\' || char === "'" ? `\\${char}` : `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`))}'`;
}

/** No argument or environment value can hold a NUL byte: it is refused as the command's start error. */
function refuseNul(text: string): void {
  if (text.includes('\0')) throw Object.assign(new Error('an argument or environment value holds a NUL byte'), { code: 'EINVAL' });
}

/** Variables bash keeps for itself: it cannot export them with the value given (readonly, dynamic or reset). */
const BASH_OWN = new Set([
  'BASHOPTS',
  'BASHPID',
  'DIRSTACK',
  'EPOCHREALTIME',
  'EPOCHSECONDS',
  'EUID',
  'FUNCNAME',
  'GROUPS',
  'HISTCMD',
  'LINENO',
  'OPTIND',
  'PIPESTATUS',
  'PPID',
  'RANDOM',
  'SECONDS',
  'SHELLOPTS',
  'SRANDOM',
  'UID',
]);

/**
 * The environment a sandboxed command gets: `env` without `_`, which a shell sets to the program it last
 * started (the one that started the engine: meaningless to a tool, and different in every shell), and
 * which bash, which starts the command, keeps for itself.
 */
function withoutUnderscore(env: Record<string, string>): Record<string, string> {
  if (!('_' in env)) return env;
  const { _: _dropped, ...rest } = env;
  return rest;
}

/** The names in `env` the launcher's shell cannot export as given: not an identifier, or one bash keeps for itself. */
export function unexportableNames(env: Record<string, string>): string[] {
  return Object.keys(env).filter((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || BASH_OWN.has(name) || name.startsWith('BASH_'));
}

/** Refuses, as the command's start error, an environment the launcher could pass only by changing it. */
function refuseUnexportable(env: Record<string, string>): void {
  const names = unexportableNames(env);
  if (names.length === 0) return;
  throw Object.assign(
    new Error(
      `a sandboxed command cannot be given ${names.map((name) => JSON.stringify(name)).join(', ')}: the sandbox's launcher (bash) cannot pass ${names.length === 1 ? 'that name' : 'those names'} on as given. Leave ${names.length === 1 ? 'it' : 'them'} out of the environment`,
    ),
    { code: 'EINVAL' },
  );
}

export interface ShellLaunch {
  id: number;
  cwd: string;
  /** Inside the sandbox: the file the command reads as its stdin (/dev/null for none). */
  stdinFile: string;
  stdoutFile: string;
  stderrFile: string;
  env: Record<string, string>;
  file: string;
  args: readonly string[];
}

/**
 * The line(s) that start one command (see SHELL_LAUNCHER_PROGRAM): its environment is sent once, the
 * first time it is used (`known`: the environments this launcher was sent, by their JSON), as bash reads a
 * pipe one byte at a time and a whole environment is several KB; with `stage` (which writes a file the
 * launcher can read and returns its path there), in a file.
 */
export function encodeShellLaunch(launch: ShellLaunch, known: Map<string, number>, stage?: (text: string) => string): string {
  const env = withoutUnderscore(launch.env);
  const key = JSON.stringify(env);
  let number = known.get(key);
  let definition = '';
  if (number === undefined) {
    number = known.size + 1;
    refuseUnexportable(env);
    if (stage) {
      // In a file that bash reads whole, rather than a line it reads a byte at a time.
      const pairs = Object.entries(env).map(([name, value]) => `${name}=${value}\0`);
      for (const pair of pairs) refuseNul(pair.slice(0, -1));
      definition = `env ${number} -f ${shellWord(stage(pairs.join('')))}\n`;
    } else {
      const pairs = Object.entries(env).map(([name, value]) => shellWord(`${name}=${value}`));
      definition = `env ${number} ${pairs.join(' ')}\n`;
    }
  }
  const words = [
    'start',
    String(launch.id),
    shellWord(launch.cwd),
    shellWord(launch.stdinFile),
    shellWord(launch.stdoutFile),
    shellWord(launch.stderrFile),
    String(number),
    shellWord(launch.file),
    ...launch.args.map(shellWord),
  ];
  const line = `${definition}${words.join(' ')}\n`;
  known.set(key, number);
  return line;
}

/** A reply of the shell launcher, as the JSON launcher would have said it; undefined when it is none. */
export function decodeShellReply(
  line: string,
):
  | { id: number; pid: number }
  | { id: number; status: number }
  | { id: number; error: { code: string } }
  | { id: number; synced: true }
  | undefined {
  // Ids and pids within what the engine and the kernel use, a status what a shell reports (0-255): a tool
  // can write on these replies (see CommandLauncher.receive), and Infinity is no exit code.
  const match = /^([PEXS]) ([1-9]\d{0,14})(?: ([0-9A-Z]+))?$/.exec(line);
  if (!match) return undefined;
  const id = Number(match[2]);
  const [, kind, , value] = match;
  if (kind === 'S' && value === undefined) return { id, synced: true };
  if (value === undefined) return undefined;
  if (kind === 'P' && /^[1-9]\d{0,9}$/.test(value)) return { id, pid: Number(value) };
  if (kind === 'E' && /^\d{1,3}$/.test(value) && Number(value) <= 255) return { id, status: Number(value) };
  if (kind === 'X' && /^[A-Z]+$/.test(value)) return { id, error: { code: value } };
  return undefined;
}

/** The bash that runs the launcher: /bin/bash or /usr/bin/bash, visible in the sandbox as on the host. */
export function findBash(): string {
  for (const path of ['/bin/bash', '/usr/bin/bash']) if (existsSync(path)) return path;
  throw Object.assign(new Error("the run's sandbox needs bash (/bin/bash or /usr/bin/bash) for its launcher; install bash"), {
    code: 'ENOENT',
  });
}
