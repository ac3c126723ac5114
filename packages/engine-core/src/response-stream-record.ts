import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { diskWrite, makeDirectory } from '@delta/errors';
import { invocationDirectory, RESPONSE_STREAM_FILE, type RunPaths } from '@delta/journal';

/**
 * Writes a streamed answer's body to io/invocations/<id>/response.sse as it arrives, chunk by chunk, so
 * nothing but the assembled answer is held in memory. A retry starts the file again: it keeps the
 * attempt whose answer response.json holds.
 */
export class ResponseStreamRecord {
  readonly file: string;
  #fd: number | undefined;

  constructor(paths: RunPaths, invocationId: string) {
    this.file = join(invocationDirectory(paths, invocationId), RESPONSE_STREAM_FILE);
  }

  write(chunk: Buffer): void {
    if (this.#fd === undefined) {
      makeDirectory(join(this.file, '..'));
      this.#fd = diskWrite(this.file, () => openSync(this.file, 'w'));
    }
    const fd = this.#fd;
    diskWrite(this.file, () => writeSync(fd, chunk));
  }

  /** The next chunk begins a new attempt's body. */
  restart(): void {
    this.close();
  }

  /** The record is not to be kept (it holds the key, cut between two events): closed and removed. */
  discard(): void {
    this.close();
    rmSync(this.file, { force: true });
  }

  close(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
  }
}
