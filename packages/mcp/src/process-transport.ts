import { startProcess, type StartedProcess } from '@delta/command-runner';
import { McpRequestError } from './mcp-request-error.js';
import { MessageLines } from './message-lines.js';
import { RpcSession, type JsonRpcMessage } from './rpc-session.js';

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

/** The largest message a server may send: a larger answer is refused unread. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Said of an answer refused for its size. */
export const OVERSIZED_ANSWER = `the answer was larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB, the most the engine reads; it was discarded`;

/** How a connection to a server carries messages: a process's stdin and stdout, or HTTP requests. */
export interface McpTransport {
  readonly session: RpcSession;
  /** How a stdio server's process ended (`exit 1`, `SIGKILL`), once it has. */
  readonly ending: string | undefined;
  /** A stdio server's process id. */
  readonly pid: number | undefined;
  close(): Promise<void>;
}

/**
 * MCP's stdio transport: newline-delimited JSON-RPC on the stdin and stdout of a server started by
 * command-runner, in its own process group, so that stopping it ends every process it started (a server
 * started through `npx` or a shell would otherwise leave its real process behind).
 */
export class ProcessTransport implements McpTransport {
  readonly session = new RpcSession((message) => this.write(message));
  ending: string | undefined;
  private readonly lines = new MessageLines(MAX_MESSAGE_BYTES);

  private constructor(private readonly child: StartedProcess) {
    child.stdout.on('data', (chunk: Buffer) => {
      this.lines.push(
        chunk,
        (line) => this.receive(line),
        // Which request it answered is unknown: every one waiting fails, saying so.
        () => this.session.failPending(new McpRequestError(OVERSIZED_ANSWER, 'oversized')),
      );
    });
    void child.ended.then((ending) => {
      this.ending = ending;
      this.session.close(`the server's process ended (${ending})`);
    });
  }

  /** Starts the server; rejects when it cannot be started (not found, not executable). */
  static async start(options: ProcessTransportOptions): Promise<ProcessTransport> {
    const { command, cwd, env, stderrFile } = options;
    const started = await startProcess({ file: command.file, args: command.args, cwd, env, stderrFile, ...inherited(command) });
    if ('startError' in started) throw new McpRequestError(`its command could not be started: ${started.startError}`, 'closed');
    return new ProcessTransport(started);
  }

  get pid(): number {
    return this.child.pid;
  }

  private receive(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      // A line that is not JSON (a server printing to stdout): the stream goes on.
      return;
    }
    this.session.receive(message);
  }

  private write(message: JsonRpcMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      this.child.stdin.write(`${JSON.stringify(message)}\n`, (error) =>
        error ? reject(new McpRequestError(`the server's stdin is closed (${error.message})`, 'closed')) : resolve(),
      );
    });
  }

  /** Ends the server's whole process group: stdin closed and SIGTERM, then SIGKILL after a grace period. */
  async close(): Promise<void> {
    this.session.close('the connection was closed');
    this.ending = await this.child.stop();
  }
}

function inherited(command: ServerCommand): { inheritFiles?: string[]; inheritData?: Buffer[] } {
  return {
    ...(command.inheritFiles === undefined ? {} : { inheritFiles: command.inheritFiles }),
    ...(command.inheritData === undefined ? {} : { inheritData: command.inheritData }),
  };
}
