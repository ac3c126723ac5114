import type { Palette } from './inspect/color.js';

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
