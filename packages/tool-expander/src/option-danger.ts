/**
 * Programs whose options cannot do harm that the value itself could not: they print, count or read what
 * they are pointed at (reading is what the sandbox bounds), or write only the file the value names
 * anyway. A value starting with '-' given to one of them changes how it prints, never what it deletes,
 * runs or sends. Anything else (find -delete, rm -rf, git -c, tar --to-command, curl -o, rsync -e, sort -o,
 * or a program this list does not know) may act on an option in a way the author did not mean.
 */
const OPTIONS_CANNOT_HARM = new Set([
  'basename',
  'cat',
  'cmp',
  'cut',
  // Its options say where sessions live, a time limit, an output cap, help and version; a session runs
  // what the model sends it by design, so no single option can make a call do more (spec 000 2.3.4).
  'delta-sessions',
  'diff',
  'dirname',
  'du',
  'echo',
  'egrep',
  'false',
  'fgrep',
  'file',
  'fold',
  'grep',
  'head',
  'ls',
  'md5sum',
  'mkdir',
  'nl',
  'od',
  'printf',
  'pwd',
  'readlink',
  'realpath',
  'rev',
  'seq',
  'sha1sum',
  'sha256sum',
  'sha512sum',
  'sleep',
  'stat',
  'tac',
  'tail',
  'tee',
  'touch',
  'tr',
  'true',
  'uname',
  'wc',
  'whoami',
]);

/** Shells: the word after `-c` is the script, code by design, which no option can make worse. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);

/** `/usr/bin/find` -> `find`. */
export function programName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * Whether a value starting with '-', placed right after `words` (the program and the arguments before it),
 * could do harm as an option. False only for a program known to act harmlessly on options, and for the
 * script of `sh -c`.
 */
export function optionCouldHarm(words: readonly string[]): boolean {
  const program = programName(words[0] ?? '');
  if (OPTIONS_CANNOT_HARM.has(program)) return false;
  if (SHELLS.has(program) && words.at(-1) === '-c') return false;
  return true;
}
