import type { EstimatedCost } from '@delta/journal';
import type { Palette } from '../inspect/color.js';
import { formatCost, formatCount, formatDuration } from '../inspect/format-numbers.js';

/** What the live status line shows. */
export interface ProgressState {
  /** The last iteration whose model call returned (0 before the first). */
  iteration: number;
  /** The last iteration this engine invocation may reach. */
  lastIteration?: number;
  phase: 'starting' | 'thinking' | 'tool' | 'waiting' | 'finishing';
  toolName?: string;
  /** When the current phase began (ms since the epoch). */
  phaseStartedAt: number;
  tokens: number;
  cost?: EstimatedCost;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Cuts plain text to `width` characters, marking the cut. */
export function fitWidth(text: string, width: number): string {
  const characters = [...text];
  return characters.length <= width ? text : `${characters.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** One line: "⠋ iteration 2/30 · running read_file 1.2s · 3,456 tokens · 0.0123 USD", at most `width` wide. */
export function renderStatusLine(state: ProgressState, now: number, palette: Palette, width: number, frame = 0): string {
  const shown = state.phase === 'thinking' || state.phase === 'starting' ? state.iteration + 1 : Math.max(1, state.iteration);
  const iteration = `iteration ${shown}${state.lastIteration === undefined ? '' : `/${state.lastIteration}`}`;
  const elapsed = formatDuration(now - state.phaseStartedAt);
  const activity = {
    starting: 'starting',
    thinking: `thinking ${elapsed}`,
    tool: state.toolName === undefined ? 'calling tools' : `running ${state.toolName} ${elapsed}`,
    waiting: 'waiting for your answer',
    finishing: 'finishing',
  }[state.phase];
  const parts = [iteration, activity, `${formatCount(state.tokens)} tokens`, ...(state.cost ? [`~${formatCost(state.cost)}`] : [])];
  const plain = fitWidth(`${SPINNER[frame % SPINNER.length]} ${parts.join(' · ')}`, Math.max(10, width - 1));
  // Colour after cutting, so escape codes never count towards the width or get cut in half.
  return plain
    .replace(/^(\S+)/, (spinner) => palette.cyan(spinner))
    .replace(iteration, palette.bold(iteration))
    .replace(state.toolName && state.phase === 'tool' ? `running ${state.toolName}` : '\u0000', (text) => palette.blue(text));
}
