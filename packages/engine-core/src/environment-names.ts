import { unexportableNames } from '@delta/command-runner';
import { CREDENTIAL_NAMES } from './model-settings.js';

/**
 * Variables no tool, MCP server, grader, hook or generator ever gets, whatever agent.yaml says: the model
 * credentials (a tool opts in with `pass_model_credentials`) and the queue's address with its password.
 */
export const NEVER_PASSED_NAMES: readonly string[] = [...CREDENTIAL_NAMES, 'DELTA_QUEUE'];

/** The core a tool gets by default (`sandbox.env.inherit: core`): what programs need to run, nothing that is a secret. */
export const CORE_NAMES: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_*', 'TERM', 'TZ', 'TMPDIR'];

/** The run's variables, set by the engine (and DELTA_SANDBOX by the sandbox): agent.yaml cannot set them. */
export const RUN_VARIABLES: readonly string[] = ['DELTA_RUN_ID', 'DELTA_AGENT_HOME', 'DELTA_CWD', 'DELTA_SANDBOX'];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why bash cannot export `name` as given, or undefined when it can. */
export function unexportableReason(name: string): string | undefined {
  if (!IDENTIFIER.test(name)) return 'it is not a name a shell can export (letters, digits and _, not starting with a digit)';
  // (The sandbox's launcher is a bash: what it cannot hand a tool as given, @delta/command-runner says.)
  if (unexportableNames({ [name]: '' }).length > 0) return 'bash keeps it for itself, so a tool cannot be given its value';
  return undefined;
}

/** A `pass:` entry: a name, or a glob of one with `*` (any run of characters) and `?` (one character). */
export const NAME_PATTERN = /^[A-Za-z_*?][A-Za-z0-9_*?]*$/;

/** Whether `name` matches a `pass:` entry (see NAME_PATTERN). */
export function matchesNamePattern(name: string, pattern: string): boolean {
  if (!/[*?]/.test(pattern)) return name === pattern;
  const source = pattern.replace(/[*?]/g, (wildcard) => (wildcard === '*' ? '.*' : '.'));
  return new RegExp(`^${source}$`).test(name);
}
