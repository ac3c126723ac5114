import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface AnswerOptions {
  status: number;
  headers: Record<string, string>;
  /** Cut the connection once this many bytes of the body are out. */
  dropAfterBytes?: number | undefined;
  /** Pause this long after the first piece of the body. */
  stallMs?: number | undefined;
  /** Pause this long between pieces (a slow server). */
  pieceDelayMs?: number | undefined;
  /** The server is closing: stop writing. */
  signal: AbortSignal;
}

/**
 * Writes a body piece by piece, waiting for the socket to drain, so a body of any size (generated as it
 * goes) never sits whole in the server's memory; it can stall, go slowly, or break off like a real server.
 */
export async function writeAnswer(response: ServerResponse, pieces: Iterable<string | Buffer>, options: AnswerOptions): Promise<void> {
  if (response.destroyed || response.writableEnded) return;
  response.writeHead(options.status, options.headers);
  let sent = 0;
  let first = true;
  for (const piece of pieces) {
    if (response.destroyed || options.signal.aborted) return;
    let bytes = typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece;
    const drop = options.dropAfterBytes !== undefined && sent + bytes.length >= options.dropAfterBytes;
    if (drop) bytes = bytes.subarray(0, options.dropAfterBytes! - sent);
    sent += bytes.length;
    if (!response.write(bytes)) {
      // Whichever comes first removes the other's listener: a long body would otherwise pile them up.
      const settled = new AbortController();
      await Promise.race([once(response, 'drain', { signal: settled.signal }), once(response, 'close', { signal: settled.signal })]).catch(
        () => undefined,
      );
      settled.abort();
    }
    if (drop) {
      // Let the bytes leave, then break the connection without ending the body.
      await new Promise((resolve) => setImmediate(resolve));
      response.socket?.destroy();
      return;
    }
    const pause = first && options.stallMs ? options.stallMs : options.pieceDelayMs;
    first = false;
    if (pause) await sleep(pause, undefined, { signal: options.signal }).catch(() => undefined);
  }
  if (!response.destroyed) response.end();
}
