import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  copyFileSync,
  fstatSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  unlink,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** Random bytes drawn a few KB at a time: each draw is a call into OpenSSL, and a call stages four names. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** A random name of `bytes` bytes, in hex. */
function randomName(bytes = 9): string {
  if (poolOffset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  poolOffset += bytes;
  return pool.toString('hex', poolOffset - bytes, poolOffset);
}

/** One output file of a sandboxed call, as the launcher inside opens it. */
export interface StagedOutput {
  /** Its name for the launcher inside: `./<random name>`, in the launcher's own directory (see RunSandbox). */
  inside: string;
  /** Once the call has ended: removes the name the tools could reach (see stageOutput). */
  finish(): void;
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (a tool may remove it), or not a file: nothing of ours is there.
  }
}

/**
 * Copies what was written to `from` into `to`, for an output that could not be linked (another file
 * system): never following a symbolic link (a tool may have put one there, to a file only this process
 * may read) and only from a regular file (a FIFO would block).
 */
function copyWithoutFollowing(from: string, to: string): void {
  let input: number;
  try {
    input = openSync(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return;
  }
  const output = openSync(to, 'w');
  try {
    if (!fstatSync(input).isFile()) return;
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let read = readSync(input, buffer); read > 0; read = readSync(input, buffer)) writeSync(output, buffer, 0, read);
  } finally {
    closeSync(input);
    closeSync(output);
  }
}

/**
 * Creates the record `file` (under .delta/, which is read-only in the sandbox) here, empty, and links it
 * under a random name into the launcher's directory `ioDir` (which no tool can name: see RunSandbox): the
 * launcher inside writes the tool's output through that name, straight into the record, which is there
 * from the start (as partial output if the engine dies). `finish`, once the call has ended, replaces the
 * record by a copy: a file no process of the sandbox holds open, so that none can change it afterwards (one
 * that reopened the call's output through /proc while the call ran keeps only the old file), and removes
 * the name (the old file is freed off this thread, from `freeingDir`, a directory on the same file system
 * that no tool can reach: freeLater). On another file system than `ioDir` the output is written there and
 * copied into the record at `finish` instead.
 */
export function stageOutput(file: string, ioDir: string, freeingDir = join(dirname(ioDir), 'freeing')): StagedOutput {
  const name = randomName();
  const staged = join(ioDir, name);
  closeSync(openSync(file, 'w'));
  try {
    linkSync(file, staged);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const finish = () => {
      copyWithoutFollowing(staged, file);
      removeQuietly(staged);
    };
    return { inside: `./${name}`, finish };
  }
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    replaceWithCopy(file);
    freeLater(staged, join(freeingDir, name));
  };
  return { inside: `./${name}`, finish };
}

/**
 * Takes `path` (a replaced record's last name) out of its directory at once, and frees the file off this
 * thread: freeing a file's blocks is the slow part of replacing a record (1-3 ms a file on an ext4 mounted
 * with `discard` and a loaded machine, against 0.1-0.3 ms for the copy and the renames; see
 * docs/decisions/step-latency.md). What is left when the process ends goes with the sandbox's directory.
 */
function freeLater(path: string, aside: string): void {
  try {
    try {
      renameSync(path, aside);
    } catch (error) {
      // Its directory is made by the first call that needs it, not looked for by each.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      mkdirSync(dirname(aside), { recursive: true, mode: 0o700 });
      renameSync(path, aside);
    }
  } catch {
    removeQuietly(path);
    return;
  }
  unlink(aside, () => undefined);
}

/**
 * Writes `text` into the launcher's directory `ioDir`, under `name` or a random one, for the launcher
 * inside to read; returns its name for the launcher (`./<name>`). It goes with the run's sandbox.
 */
export function stageFile(ioDir: string, text: string, name = randomName()): string {
  const fd = openSync(join(ioDir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return `./${name}`;
}

/**
 * Writes a call's stdin into the launcher's directory `ioDir` under a random name, for the launcher inside
 * to open as the command's stdin; `finish` removes it once the call has ended. Other processes of the run's
 * sandbox can reach it only through the command's own descriptor 0 while it runs.
 */
export function stageInput(text: string, ioDir: string): StagedOutput {
  const name = `${randomName()}.in`;
  const inside = stageFile(ioDir, text, name);
  return { inside, finish: () => removeQuietly(join(ioDir, name)) };
}

/** Replaces `file` by a new file with the same contents (a clone where the file system can), renamed into place. */
function replaceWithCopy(file: string): void {
  const temporary = `${file}.${randomName(6)}.tmp`;
  copyFileSync(file, temporary, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
  renameSync(temporary, file);
}
