import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, existsSync, linkSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createSandboxTmp } from './sandbox-tmp.js';
import { findBash } from './shell-launcher.js';

/**
 * The sandbox's launcher is this machine's bash, run by this machine's dynamic loader from files of its own
 * in the launcher's directory: `delta-sandbox-launcher` (the loader), `bash` and `lib/` (the libraries bash
 * needs). Two things follow.
 *
 * - The loader's copy has mode 0111: the launcher may run it but not read it, and the kernel makes a process
 *   that runs a program it cannot read non-dumpable, which a fork keeps. The launcher's and its watchers'
 *   /proc/<pid>/fd, memory and environment are closed to every other process of the run, and ptrace and
 *   pidfd_getfd on them fail, although every process in there has the same user: no tool can take the
 *   launcher's reply channel or a watcher's descriptors and forge another call's end, exit code or output.
 *   A command the launcher starts runs its own, readable, program: an ordinary process again.
 * - The launcher needs nothing of the root the tools see: it runs the same under an image's root (whose
 *   libraries may be others, or none), as under this machine's.
 *
 * One copy per engine process while it has sandboxes (each holds hard links of its own, so the copy goes
 * when the last one stops), in a directory named as a sandbox's private /tmp is (see sandbox-tmp.ts), so
 * that the next engine removes it if this one is killed.
 */
const LOADER = 'delta-sandbox-launcher';

let shared: { dir: string; files: string[] } | undefined;
let users = 0;

/** What could not be done to prepare the launcher, as a Node error with a code (ELAUNCHER). */
function launcherError(message: string): Error {
  return Object.assign(new Error(`the run's sandbox cannot prepare its launcher: ${message}`), { code: 'ELAUNCHER' });
}

/** The ELF interpreter (PT_INTERP) of `program`: its dynamic loader. */
function interpreterOf(program: string): string {
  const fd = openSync(program, 'r');
  try {
    const header = Buffer.alloc(64);
    readSync(fd, header, 0, 64, 0);
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1)
      throw launcherError(`${program} is not a 64-bit little-endian ELF program`);
    const tableAt = Number(header.readBigUInt64LE(32));
    const entrySize = header.readUInt16LE(54);
    const entries = header.readUInt16LE(56);
    const entry = Buffer.alloc(56);
    for (let index = 0; index < entries; index += 1) {
      readSync(fd, entry, 0, 56, tableAt + index * entrySize);
      if (entry.readUInt32LE(0) !== 3) continue;
      const text = Buffer.alloc(Number(entry.readBigUInt64LE(32)));
      readSync(fd, text, 0, text.length, Number(entry.readBigUInt64LE(8)));
      return text.toString('utf8').replace(/\0+$/, '');
    }
  } finally {
    closeSync(fd);
  }
  throw launcherError(`${program} names no dynamic loader`);
}

/** The libraries `program` loads, as its loader lists them (`LOADER --list PROGRAM`). */
function librariesOf(loader: string, program: string): string[] {
  const listed = spawnSync(loader, ['--list', program], { encoding: 'utf8' });
  if (listed.status !== 0) throw launcherError(`${loader} --list ${program} failed: ${listed.stderr || listed.error?.message}`);
  return [...listed.stdout.matchAll(/=> (\/\S+) \(/g)].map((match) => match[1]!);
}

function copy(from: string, to: string, mode: number): void {
  copyFileSync(from, to);
  chmodSync(to, mode);
}

/** Makes the files under `dir`; returns the paths relative to it of what was made. */
function makeFiles(dir: string): string[] {
  const bash = findBash();
  const loader = interpreterOf(bash);
  mkdirSync(join(dir, 'lib'), { recursive: true });
  const libraries: string[] = [];
  for (const library of librariesOf(loader, bash)) {
    libraries.push(join('lib', basename(library)));
    copy(library, join(dir, libraries.at(-1)!), 0o444);
  }
  copy(bash, join(dir, 'bash'), 0o444);
  copy(loader, join(dir, LOADER), 0o111);
  return [LOADER, 'bash', ...libraries];
}

function sharedCopy(parent: string): { dir: string; files: string[] } {
  if (shared !== undefined && existsSync(shared.dir)) return shared;
  const dir = join(createSandboxTmp(parent), 'launcher');
  shared = { dir, files: makeFiles(dir) };
  return shared;
}

/**
 * Puts the launcher's files into `dir` (the launcher's directory, under `parent`): hard links to the
 * process's copy (one set of inodes, so that every sandbox's launcher shares their pages), or, on another
 * file system, copies of their own.
 */
export function placeLauncherFiles(parent: string, dir: string): void {
  const source = sharedCopy(parent);
  mkdirSync(join(dir, 'lib'), { recursive: true });
  try {
    for (const file of source.files) linkSync(join(source.dir, file), join(dir, file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    rmSync(join(dir, 'lib'), { recursive: true, force: true });
    for (const file of source.files) rmSync(join(dir, file), { force: true });
    makeFiles(dir);
  }
  users += 1;
}

/** Said by a sandbox that stops: the process's copy is removed with the last one. */
export function releaseLauncherFiles(): void {
  users = Math.max(0, users - 1);
  if (users > 0 || shared === undefined) return;
  rmSync(dirname(shared.dir), { recursive: true, force: true });
  shared = undefined;
}

/**
 * The command that starts the launcher from its directory `dir` (as the sandbox sees it): the loader runs
 * bash, which runs the loader again named `delta-sandbox-launcher` (what ps shows, and its watchers), and
 * then reads its program and its messages from its stdin.
 */
export function launcherCommand(dir: string): string[] {
  const loader = join(dir, LOADER);
  const library = join(dir, 'lib');
  const bash = join(dir, 'bash');
  const again = `exec -a ${LOADER} "$0" --library-path "$1" "$2" --norc --noprofile`;
  return [loader, '--library-path', library, bash, '--norc', '--noprofile', '-c', again, loader, library, bash];
}
