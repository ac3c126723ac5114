import { createReadStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import type { Palette } from './inspect/color.js';
import { visibleControls } from './inspect/visible-controls.js';

/** Where `delta show` prints: text as it is, whole lines, section headings, and files copied as they are. */
export interface ShowOutput {
  palette: Palette;
  write: (text: string) => void;
  /** Writes `text` and a newline. */
  line: (text: string) => void;
  /** `== text`, in bold on a terminal: a section. */
  heading: (text: string) => void;
  /** Copies a file (a tool's output can be larger than memory), on a terminal with its control characters shown; nothing when it does not exist. */
  pipe: (file: string) => Promise<void>;
}

/** A {@link ShowOutput} over one writer, in `palette`'s colours. */
export function showOutput(palette: Palette, write: (text: string) => void, pipe: (file: string) => Promise<void>): ShowOutput {
  const line = (text: string) => write(`${text}\n`);
  return { palette, write, line, heading: (text) => line(palette.bold(`== ${text}`)), pipe };
}

/**
 * Copies `file` (a tool's output, which can be larger than memory) to `stream`: on a terminal with its control
 * characters shown, not obeyed (a tool must not clear the screen, retitle it or write its clipboard);
 * otherwise byte for byte. Nothing when it does not exist.
 */
export async function showFileOn(stream: NodeJS.WriteStream, file: string): Promise<void> {
  if (!stream.isTTY) return pipeFileTo(stream, file);
  if (!existsSync(file)) return;
  for await (const chunk of createReadStream(file, { encoding: 'utf8' })) stream.write(visibleControls(chunk as string));
}

/** Copies `file` to `stream` byte for byte, however large; nothing when it does not exist. */
export async function pipeFileTo(stream: NodeJS.WritableStream, file: string): Promise<void> {
  if (!existsSync(file)) return;
  const input = createReadStream(file);
  input.pipe(stream, { end: false });
  await once(input, 'end');
}
