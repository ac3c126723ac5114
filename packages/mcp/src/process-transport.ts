import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The command that starts a server, as it is spawned (bubblewrap's, when a sandbox wraps it). */
export interface ServerCommand {
  file: string;
  args: string[];
  /** Files opened for reading and given to the command as file descriptors 3, 4, … in this order. */
  inheritFiles?: string[];
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
  private readonly buffer = new ReadBuffer();
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
      child = spawn(command.file, command.args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', stderr, ...inherited] });
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
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          // A line that is not JSON-RPC (a server printing to stdout): reported, and the stream goes on.
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        this.ending = `could not start: ${error.message}`;
        reject(error);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
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
