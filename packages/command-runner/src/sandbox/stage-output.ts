import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_OUTPUT_DIR } from './bubblewrap-args.js';

/** One output file of a sandboxed call, as the launcher inside opens it. */
export interface StagedOutput {
  /** Its path inside the sandbox: /tmp/.delta-io/<random name>. */
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
 * under a random name into the sandbox's output directory (`tmpDir`/.delta-io, which is /tmp/.delta-io in
 * there, a mount point no tool can replace): the launcher inside writes the tool's output through that
 * name, straight into the record, which is there from the start (as partial output if the engine dies).
 * `finish` removes the name, after which no tool can reach the record (if a tool linked it under another
 * name, the record is replaced by a copy: see finish). On another file system than
 * `tmpDir` the output is written there and copied into the record at `finish` instead.
 */
export function stageOutput(file: string, tmpDir: string): StagedOutput {
  const name = randomBytes(9).toString('hex');
  const staged = join(tmpDir, SANDBOX_OUTPUT_DIR, name);
  // Kept open until finish: the record as it is, whatever a tool does with its names.
  const record = openSync(file, 'w+');
  try {
    linkSync(file, staged);
  } catch (error) {
    closeSync(record);
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const finish = () => {
      copyWithoutFollowing(staged, file);
      removeQuietly(staged);
    };
    return { inside: join('/tmp', SANDBOX_OUTPUT_DIR, name), finish };
  }
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    removeQuietly(staged);
    try {
      // A tool may have linked the record under another name in there (/tmp/.delta-io is writable), to
      // rewrite it once the call has ended: then the record becomes a copy, a file no tool can name.
      if (fstatSync(record).nlink > 1) replaceWithCopy(record, file);
    } finally {
      closeSync(record);
    }
  };
  return { inside: join('/tmp', SANDBOX_OUTPUT_DIR, name), finish };
}

/**
 * Writes `text` into the sandbox's output directory (`tmpDir`/.delta-io), under `name` or a random one,
 * for the launcher inside to read; returns its path in there. It goes with the run's /tmp.
 */
export function stageFile(tmpDir: string, text: string, name = randomBytes(9).toString('hex')): string {
  const fd = openSync(
    join(tmpDir, SANDBOX_OUTPUT_DIR, name),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return join('/tmp', SANDBOX_OUTPUT_DIR, name);
}

/**
 * Writes a call's stdin into the sandbox's output directory under a random name, for the launcher inside
 * to open as the command's stdin; `finish` removes it once the call has ended. Other processes of the
 * run's sandbox can read it meanwhile, as they could read the pipe a command was given before.
 */
export function stageInput(text: string, tmpDir: string): StagedOutput {
  const name = `${randomBytes(9).toString('hex')}.in`;
  const inside = stageFile(tmpDir, text, name);
  return { inside, finish: () => removeQuietly(join(tmpDir, SANDBOX_OUTPUT_DIR, name)) };
}

/** Replaces `file` (open as `fd`) by a new file with the same contents, renamed into place. */
function replaceWithCopy(fd: number, file: string): void {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const output = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let position = 0;
    for (let read = readSync(fd, buffer, 0, buffer.length, position); read > 0; read = readSync(fd, buffer, 0, buffer.length, position)) {
      writeSync(output, buffer, 0, read);
      position += read;
    }
  } finally {
    closeSync(output);
  }
  renameSync(temporary, file);
}
