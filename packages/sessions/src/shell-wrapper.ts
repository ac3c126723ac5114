import type { ShellDialect } from './session-kind.js';

/**
 * The wrapper of spec 2.3.3, run as `<shell> -c <wrapper> delta-session <env.sh> <functions.sh>
 * <work dir> <command> <env path>`: load the state, run the command, report the new state on fd 3.
 * The EXIT trap reports even when the command calls `exit N`, fails under `set -e` or is sent
 * SIGTERM, and keeps the exit code. The shell writes nothing to disk itself: the library diffs the
 * report against the inherited environment and writes only the session's own changes.
 */
export function wrapperScript(dialect: ShellDialect): string {
  const extras = dialect === 'bash' ? ' declare -f; alias -p;' : '';
  return [
    '__delta_save() {',
    '  __delta_status=$?',
    '  trap - EXIT',
    ...(dialect === 'bash' ? ['  unset -f __delta_save'] : []),
    `  { printf '%s\\0' "$PWD"; "$__delta_env" -0; printf '\\0';${extras} } >&3 2>/dev/null`,
    '  exit "$__delta_status"',
    '}',
    'trap __delta_save EXIT',
    '__delta_command=$4',
    '__delta_env=$5',
    '__delta_work_dir=$3',
    'if [ -f "$1" ]; then . "$1"; fi',
    ...(dialect === 'bash' ? ['if [ -f "$2" ]; then . "$2"; fi', 'shopt -s expand_aliases'] : []),
    'set --',
    'cd -- "$__delta_work_dir" 2>/dev/null || printf \'delta-sessions: the saved directory %s is gone; running in %s\\n\' "$__delta_work_dir" "$PWD" >&2',
    'eval "$__delta_command"',
  ].join('\n');
}
