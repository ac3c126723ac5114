import { containedCredential, inheritedCredentials } from './credentials.js';

/** What the wrapper reports on fd 3 when a shell exec ends: `PWD\0`, `NAME=value\0`..., `\0`, functions. */
export interface ShellStateDump {
  workDir: string;
  environment: Map<string, string>;
  /** `declare -f` and `alias -p` output (bash only; empty for sh). */
  functions: string;
}

/** What the session itself changed, ready to be written as env.sh and functions.sh. */
export interface ShellState {
  workDir: string;
  exports: Array<[name: string, value: string]>;
  unsets: string[];
  functions: string;
  /** One line per thing not saved because it holds an inherited credential; shown on the exec's stderr. */
  notes: string[];
}

/** Variables the shell maintains itself; never saved. */
const shellManaged = new Set(['PWD', 'OLDPWD', 'SHLVL', '_']);
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses the dump; undefined when there is none (the shell was killed before it could report). */
export function parseStateDump(dump: Buffer): ShellStateDump | undefined {
  const text = dump.toString('utf8');
  const workDirEnd = text.indexOf('\0');
  if (workDirEnd <= 0) return undefined;
  const environment = new Map<string, string>();
  let position = workDirEnd + 1;
  for (;;) {
    const end = text.indexOf('\0', position);
    if (end < 0) return undefined; // cut short: do not save half a state
    if (end === position) break; // the empty entry that closes the environment
    const entry = text.slice(position, end);
    const equals = entry.indexOf('=');
    if (equals > 0) environment.set(entry.slice(0, equals), entry.slice(equals + 1));
    position = end + 1;
  }
  return { workDir: text.slice(0, workDirEnd), environment, functions: text.slice(position + 1) };
}

/**
 * Keeps only what differs from the environment this exec inherited, so neither the inherited
 * environment nor an inherited credential is ever written; a variable or function whose value
 * contains an inherited credential's value (a copy under another name) is not saved either.
 */
export function sessionChanges(dump: ShellStateDump, inherited: NodeJS.ProcessEnv): ShellState {
  const credentials = inheritedCredentials(inherited);
  const notes: string[] = [];
  const exports: Array<[string, string]> = [];
  for (const [name, value] of dump.environment) {
    if (shellManaged.has(name) || !identifier.test(name) || inherited[name] === value) continue;
    const credential = containedCredential(value, credentials);
    if (credential !== undefined) {
      notes.push(`delta-sessions: ${name} was not saved for the next exec: its value contains the inherited credential ${credential}.`);
      continue;
    }
    exports.push([name, value]);
  }
  const unsets = Object.keys(inherited).filter(
    (name) => inherited[name] !== undefined && !dump.environment.has(name) && !shellManaged.has(name) && identifier.test(name),
  );
  let functions = dump.functions;
  const inFunctions = containedCredential(functions, credentials);
  if (inFunctions !== undefined) {
    notes.push(
      `delta-sessions: shell functions and aliases were not saved for the next exec: they contain the inherited credential ${inFunctions}.`,
    );
    functions = '';
  }
  return { workDir: dump.workDir, exports: exports.sort(([a], [b]) => a.localeCompare(b)), unsets: unsets.sort(), functions, notes };
}

export function quoteForShell(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** env.sh: sourced before each exec. */
export function renderEnvironmentFile(state: ShellState): string {
  const lines = ['# Written by delta-sessions: only what this session changed; inherited variables are not stored.'];
  for (const [name, value] of state.exports) lines.push(`export ${name}=${quoteForShell(value)}`);
  for (const name of state.unsets) lines.push(`unset ${name}`);
  return `${lines.join('\n')}\n`;
}
