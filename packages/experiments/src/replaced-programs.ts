import { listLayerChanges } from '@delta/command-runner';

/** Where an image keeps the programs a grader's command runs by name (merged-/usr images link one to the other). */
const PROGRAM_DIRECTORIES = ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];

/** Files that change every dynamically linked program of an image. */
const LOADER_FILES = ['/etc/ld.so.preload'];

/**
 * The grader's own programs that the run changed in its layer (`runLayer`): `/bin/sh`, which starts the
 * grader's command, and each program the command names (`bash` in `bash /tests/test.sh`) wherever the
 * image keeps programs, written, deleted, or shadowed by a directory made a link; and `/etc/ld.so.preload`.
 * A command grader runs in the run's final environment, which the run's tools could change at will: a run
 * that replaced the verifier's shell had it write a passing reward. Such a run gets no verdict. What the
 * verifier runs after that (its python3, pytest, the libraries) is not looked at: see docs/security.md.
 */
export function replacedGraderPrograms(command: string, runLayer: string): string[] {
  const names = new Set(['sh', ...command.split(/[\s;&|()<>]+/).filter((word) => /^[\w.+-]+$/.test(word))]);
  const watched = new Set([
    ...LOADER_FILES,
    ...PROGRAM_DIRECTORIES,
    '/usr',
    '/usr/local',
    ...PROGRAM_DIRECTORIES.flatMap((directory) => [...names].map((name) => `${directory}/${name}`)),
  ]);
  // An absolute program path the command names (`/opt/venv/bin/python3 …`).
  for (const word of command.split(/[\s;&|()<>]+/)) if (/^\/[\w./+-]+$/.test(word) && !word.startsWith('/tests/')) watched.add(word);
  return listLayerChanges(runLayer)
    .changes.filter((change) => watched.has(change.path))
    .map((change) => `${change.path} (${change.change})`);
}
