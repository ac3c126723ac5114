import { basename } from 'node:path';
import type { SessionKind } from './types.js';

/** The shells whose state is kept in files; `bash` also keeps functions and aliases. */
export type ShellDialect = 'bash' | 'sh';

const dialects: Record<string, ShellDialect> = { bash: 'bash', sh: 'sh', dash: 'sh' };

export function shellDialect(command: string): ShellDialect | undefined {
  return dialects[basename(command)];
}

export function sessionKind(command: string): SessionKind {
  return shellDialect(command) === undefined ? 'interpreter' : 'shell';
}
