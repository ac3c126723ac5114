import { constants } from 'node:os';

/**
 * What the engine keeps of a command it sent the shell launcher (see shell-launcher.ts): its pid once
 * known, the signals sent to it (a shell reports a signal N as exit 128+N), and one sent before its pid
 * was known.
 */
export interface ShellSignals {
  pid?: number;
  signals?: Set<NodeJS.Signals>;
  early?: NodeJS.Signals;
}

/**
 * Records `signal` as sent to the command and returns the line that sends it: the shell launcher is told
 * the process group itself, so before its pid is known there is none, and the signal waits for it.
 */
export function shellStop(entry: ShellSignals, signal: NodeJS.Signals): string | undefined {
  entry.signals!.add(signal);
  if (entry.pid === undefined) {
    entry.early = signal;
    return undefined;
  }
  return `stop ${entry.pid} ${signal}\n`;
}

/** The line that sends the signal that waited for the command's pid, now known; none when nothing waited. */
export function earlyShellStop(entry: ShellSignals): string | undefined {
  return entry.early === undefined ? undefined : `stop ${entry.pid} ${entry.early}\n`;
}

/** A shell launcher's end or start failure (see decodeShellReply), changed in place into what the node launcher says. */
export function asNodeReply(
  reply: { status?: number; exit?: number | null; signal?: NodeJS.Signals | null; error?: { code?: string; message: string } },
  entry: ShellSignals,
): void {
  if (reply.status !== undefined) Object.assign(reply, shellEnd(reply.status, entry.signals));
  if (reply.error !== undefined) reply.error = shellStartError(reply.error.code);
}

/**
 * A shell's status as an exit or a signal: 128+N is the signal N when this process sent N (a timeout, an
 * interrupt), and an exit code otherwise: a shell cannot tell `exit 137` from SIGKILL, and a signal from
 * elsewhere (a tool that killed itself) is reported as the shell reports it.
 */
function shellEnd(status: number, sent: ReadonlySet<NodeJS.Signals> | undefined): { exit: number | null; signal: NodeJS.Signals | null } {
  for (const signal of sent ?? []) if (status === 128 + constants.signals[signal]) return { exit: null, signal };
  return { exit: status, signal: null };
}

/** What the shell launcher's start failure means, as the node launcher says it. */
function shellStartError(code: string | undefined): { code?: string; message: string } {
  if (code === 'EIO') return { code, message: "the command's input or output file could not be opened" };
  return { code, message: code === 'EACCES' ? 'permission denied' : 'no such file or directory' };
}
