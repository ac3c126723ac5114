import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
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
 * `finish` removes the name, after which no tool can reach the record. On another file system than
 * `tmpDir` the output is written there and copied into the record at `finish` instead.
 */
export function stageOutput(file: string, tmpDir: string): StagedOutput {
  const name = randomBytes(9).toString('hex');
  const staged = join(tmpDir, SANDBOX_OUTPUT_DIR, name);
  closeSync(openSync(file, 'w'));
  try {
    linkSync(file, staged);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    const finish = () => {
      copyWithoutFollowing(staged, file);
      removeQuietly(staged);
    };
    return { inside: join('/tmp', SANDBOX_OUTPUT_DIR, name), finish };
  }
  return { inside: join('/tmp', SANDBOX_OUTPUT_DIR, name), finish: () => removeQuietly(staged) };
}
