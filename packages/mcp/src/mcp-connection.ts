import { HttpTransport } from './http-transport.js';
import { jsonLength } from './json-length.js';
import { McpRequestError } from './mcp-request-error.js';
import { callResultProblem, toolListProblem, type McpCallResult, type McpTool } from './mcp-types.js';
import { MAX_MESSAGE_BYTES, ProcessTransport, type McpTransport, type ServerCommand } from './process-transport.js';

/** How one server is reached: a command to start (stdio), or a URL (Streamable HTTP). */
export type ServerEndpoint =
  | { kind: 'stdio'; command: ServerCommand; cwd: string; env: Record<string, string>; stderrFile: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

/** What the engine tells a server it is. */
const CLIENT_INFO = { name: 'delta-engine', version: '1' };

/** The MCP revisions this client speaks, the newest first: it asks for the first, and takes any. */
const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** The most pages of tools/list read from one server: a server that never stops paging fails to start. */
const MAX_TOOL_PAGES = 100;

/** The most a server's tools may take, every page together (as JSON text): as much as one message. */
const MAX_TOOL_LIST_CHARS = MAX_MESSAGE_BYTES;

function unreadable(method: string, problem: string): McpRequestError {
  return new McpRequestError(`its answer to ${method} cannot be read: ${problem}`, 'protocol');
}

/**
 * One live connection to an MCP server: started, initialised (MCP's lifecycle: initialize, then
 * notifications/initialized), its tools listed, calls made, stopped. A connection that has closed (the
 * server exited) stays closed; the owner starts a new one to restart the server.
 */
export class McpConnection {
  private constructor(private readonly transport: McpTransport) {}

  /** Starts the server and completes MCP's initialisation; rejects with what went wrong. */
  static async open(endpoint: ServerEndpoint, timeoutMs: number): Promise<McpConnection> {
    const transport =
      endpoint.kind === 'stdio'
        ? await ProcessTransport.start({ command: endpoint.command, cwd: endpoint.cwd, env: endpoint.env, stderrFile: endpoint.stderrFile })
        : new HttpTransport(endpoint.url, endpoint.headers);
    const connection = new McpConnection(transport);
    try {
      await connection.initialize(timeoutMs);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  private async initialize(timeoutMs: number): Promise<void> {
    const session = this.transport.session;
    const params = { protocolVersion: PROTOCOL_VERSIONS[0], capabilities: {}, clientInfo: CLIENT_INFO };
    const result = (await session.request('initialize', params, timeoutMs)) as { protocolVersion?: unknown } | null;
    const version = result?.protocolVersion;
    if (typeof version !== 'string') throw unreadable('initialize', 'it has no protocolVersion');
    if (!PROTOCOL_VERSIONS.includes(version)) {
      throw new McpRequestError(
        `the server speaks MCP ${version}, which this client does not (it speaks ${PROTOCOL_VERSIONS.join(', ')})`,
        'protocol',
      );
    }
    if (this.transport instanceof HttpTransport) this.transport.protocolVersion = version;
    session.notify('notifications/initialized');
  }

  get isClosed(): boolean {
    return this.transport.session.isClosed;
  }

  /** How a stdio server's process ended (`exit 1`, `SIGKILL`), once it has. */
  get ending(): string | undefined {
    return this.transport.ending;
  }

  /** The stdio server's process id. */
  get pid(): number | undefined {
    return this.transport.pid;
  }

  /**
   * Every tool the server lists, page after page (nextCursor). A list that does not end within
   * MAX_TOOL_PAGES pages, or is larger than the engine reads, is an error: a part of it is not the list.
   */
  async listTools(timeoutMs: number): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    let size = 0;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const listed = await this.transport.session.request('tools/list', cursor === undefined ? {} : { cursor }, timeoutMs);
      const problem = toolListProblem(listed);
      if (problem !== undefined) throw unreadable('tools/list', problem);
      const { tools: pageTools, nextCursor } = listed as { tools: McpTool[]; nextCursor?: string };
      size += jsonLength(pageTools, MAX_TOOL_LIST_CHARS - size);
      if (size > MAX_TOOL_LIST_CHARS) {
        throw new McpRequestError(
          `its tools take more than ${MAX_TOOL_LIST_CHARS / 1024 / 1024} MiB (every page of tools/list together), more than the engine reads`,
          'oversized',
        );
      }
      // One by one: a page of a few hundred thousand tools spread as arguments would overflow the stack.
      for (const tool of pageTools) tools.push(tool);
      cursor = nextCursor;
      if (cursor === undefined) return tools;
    }
    throw unreadable('tools/list', `it still gave a nextCursor after ${MAX_TOOL_PAGES} pages, and a list that does not end is not read`);
  }

  async callTool(name: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<McpCallResult> {
    const result = await this.transport.session.request('tools/call', { name, arguments: args }, timeoutMs, signal);
    const problem = callResultProblem(result);
    if (problem !== undefined) throw unreadable('tools/call', problem);
    return result as McpCallResult;
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
