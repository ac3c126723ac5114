import type { Writable } from 'node:stream';
import { jsonStringPieces } from './json-pieces.js';
import type { LaunchRequest } from './launch-protocol.js';

/** The node launcher's protocol (launcher-process.js): one JSON object per line each way. */

/** Writes the line that asks the node launcher to start `request` as command `id`. */
export function writeJsonLaunch(input: Writable, id: number, request: LaunchRequest): void {
  const { file, args, cwd, env, stdin, stdoutFile, stderrFile, processFile, inheritFiles } = request;
  const message = JSON.stringify({ id, file, args, cwd, env, stdoutFile, stderrFile, processFile, inheritFiles });
  if (stdin === undefined) input.write(`${message}\n`);
  else {
    // The stdin goes last, its JSON written a piece at a time, as bytes: a large one (a tool's 30 MB
    // argument) then waits for the pipe once, as bytes, not also as a message string, nor as strings
    // that the stream copies into bytes all at once when the pipe drains.
    input.write(`${message.slice(0, -1)},"stdin":`);
    for (const piece of jsonStringPieces(stdin)) input.write(Buffer.from(piece, 'utf8'));
    input.write('}\n');
  }
}

/** A line of the node launcher's output, parsed; undefined when it is no JSON. */
export function decodeJsonReply(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
