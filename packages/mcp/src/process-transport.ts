import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { deserializeMessage, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MessageLines } from './message-lines.js';

/** The command that starts a server, as it is spawned (bubblewrap's, when a sandbox wraps it). */
export interface ServerCommand {
  file: string;
  args: string[];
  /** Files opened for reading and given to the command as file descriptors 3, 4, … in this order. */
  inheritFiles?: string[];
  /** Data given to the command on pipes, as the file descriptors after those of inheritFiles, in this order. */
  inheritData?: Buffer[];
}

export interface ProcessTransportOptions {
  command: ServerCommand;
  cwd: string;
  env: Record<string, string>;
  /** The server's stderr is appended to this file (never the user's terminal). */
  stderrFile: string;
}

/** How long a server has to end after SIGTERM before its process group is killed. */
const STOP_GRACE_MS = 2000;

/** The largest message a server may send (the SDK's own limit): a larger answer is refused unread. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** The JSON-RPC error code (of the range left to implementations) of an answer refused for its size. */
export const OVERSIZED_ANSWER_CODE = -32099;

/**
 * The stdio transport of an MCP server, in its own process group: the SDK's own one kills only the process
 * it started, and a server started through `npx` or a shell leaves its real process behind. Stopping it
 * ends the whole group (SIGTERM, then SIGKILL).
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | undefined;
  private readonly lines = new MessageLines(MAX_MESSAGE_BYTES);
  /** Requests sent and not yet answered: an answer too large to read fails them (the SDK's own buffer threw, uncaught). */
  private readonly pending = new Set<string | number>();
  private exited: Promise<void> = Promise.resolve();
  /** How the process ended (`exit 1`, `SIGKILL`), once it has. */
  ending: string | undefined;

  constructor(private readonly options: ProcessTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    const { command, cwd, env, stderrFile } = this.options;
    const stderr = openSync(stderrFile, 'a');
    const inherited: number[] = [];
    let child: ChildProcess;
    try {
      for (const file of command.inheritFiles ?? []) inherited.push(openSync(file, 'r'));
      const pipes = (command.inheritData ?? []).map(() => 'pipe' as const);
      child = spawn(command.file, command.args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', stderr, ...inherited, ...pipes] });
      (command.inheritData ?? []).forEach((data, index) => {
        const pipe = child.stdio[3 + inherited.length + index] as Writable;
        pipe.on('error', () => undefined);
        pipe.end(data);
      });
    } finally {
      // The server holds its own copies.
      closeSync(stderr);
      for (const fd of inherited) closeSync(fd);
    }
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.ending = signal ?? `exit ${code}`;
        this.child = undefined;
        resolve();
        this.onclose?.();
      });
    });
    child.stdin!.on('error', (error) => this.onerror?.(error));
    child.stdout!.on('error', (error) => this.onerror?.(error));
    child.stdout!.on('data', (chunk: Buffer) => {
      this.lines.push(
        chunk,
        (line) => this.receive(line),
        () => this.refuseOversized(),
      );
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        this.ending = `could not start: ${error.message}`;
        reject(error);
      });
    });
  }

  private receive(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // A line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on.
      this.onerror?.(error as Error);
      return;
    }
    if ('id' in message && message.id !== undefined && !('method' in message)) this.pending.delete(message.id);
    this.onmessage?.(message);
  }

  /** An answer past MAX_MESSAGE_BYTES: every request waiting is answered with an error that says so. */
  private refuseOversized(): void {
    const limit = `${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`;
    this.onerror?.(new Error(`the MCP server sent a message larger than ${limit}; it was not read`));
    for (const id of this.pending) {
      this.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: OVERSIZED_ANSWER_CODE, message: `the answer was larger than ${limit}, the most the engine reads; it was discarded` },
      });
    }
    this.pending.clear();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && 'method' in message) this.pending.add(message.id);
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('the MCP server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the server's whole process group: stdin closed and SIGTERM, then SIGKILL after a grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child?.pid) return;
    child.stdin?.end();
    signalGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
    // What the server started and left in its group goes too.
    signalGroup(child.pid, 'SIGKILL');
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}
