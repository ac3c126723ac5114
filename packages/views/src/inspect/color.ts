const style = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

export const COLORS = {
  bold: style(1, 22),
  dim: style(2, 22),
  red: style(31, 39),
  green: style(32, 39),
  yellow: style(33, 39),
  blue: style(34, 39),
  magenta: style(35, 39),
  cyan: style(36, 39),
};

/** ANSI styles, or none: colour only on a terminal and never when NO_COLOR is set (no-color.org). */
export type Palette = typeof COLORS;

const plain = (text: string) => text;
export const NO_COLORS: Palette = {
  bold: plain,
  dim: plain,
  red: plain,
  green: plain,
  yellow: plain,
  blue: plain,
  magenta: plain,
  cyan: plain,
};

export function useColor(stream: NodeJS.WriteStream, environment: NodeJS.ProcessEnv): boolean {
  const noColor = environment.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === '') && environment.TERM !== 'dumb';
}

/** The palette for what is written to `stream`, given the process's environment (NO_COLOR, TERM). */
export function paletteFor(stream: NodeJS.WriteStream, environment: NodeJS.ProcessEnv): Palette {
  return useColor(stream, environment) ? COLORS : NO_COLORS;
}

/** A run status's colour: green when it completed, red when it failed (or cannot be read), yellow otherwise. */
export function statusColor(palette: Palette, status: string): (text: string) => string {
  return status === 'COMPLETED' ? palette.green : status === 'FAILED' || status === 'UNREADABLE' ? palette.red : palette.yellow;
}
