import type { ContextSource } from '../manifest.js';
import type { CountTokens } from '../token-count.js';

/** What every source processor needs to know about the run. */
export interface SourceContext {
  /** The file the manifest came from, for error messages. */
  manifestFile: string;
  agentHome: string;
  cwd: string;
  countTokens: CountTokens;
  /** Told when a context file is left out (a link out of the workspace, a FIFO, ...), naming it and why. */
  onNotice?: (message: string) => void;
}

/** A source's name in messages and errors: its `id`, or its type and position. */
export function sourceId(source: ContextSource, index: number): string {
  return source.id ?? `${source.type}_${index}`;
}

/** The header that opens every file and computed_file block. */
export function blockHeader(id: string): string {
  return `# Context Block: ${id}\n\n`;
}
