import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { BoundedSchemaValidator } from './output-schema-validator.js';
import { ProcessTransport, type ServerCommand } from './process-transport.js';

/** How one server is reached: a command to start (stdio), or a URL (Streamable HTTP). */
export type ServerEndpoint =
  | { kind: 'stdio'; command: ServerCommand; cwd: string; env: Record<string, string>; stderrFile: string }
  | { kind: 'http'; url: string; headers: Record<string, string> };

/** What the engine tells a server it is. */
const CLIENT_INFO = { name: 'delta-engine', version: '1' };

/** The most pages of tools/list read from one server: a server that never stops paging is cut off. */
const MAX_TOOL_PAGES = 100;

/**
 * One live connection to an MCP server: started, its tools listed, calls made, stopped. A connection that
 * has closed (the server exited) stays closed; the owner starts a new one to restart the server.
 */
export class McpConnection {
  private closed = false;

  private constructor(
    private readonly client: Client,
    private readonly transport: Transport,
  ) {
    client.onclose = () => {
      this.closed = true;
    };
  }

  /** Starts the server and completes MCP's initialisation; rejects with what went wrong. */
  static async open(endpoint: ServerEndpoint, timeoutMs: number): Promise<McpConnection> {
    const transport: Transport =
      endpoint.kind === 'stdio'
        ? new ProcessTransport({ command: endpoint.command, cwd: endpoint.cwd, env: endpoint.env, stderrFile: endpoint.stderrFile })
        : new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: endpoint.headers } });
    const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: new BoundedSchemaValidator() });
    // Errors the transport reports beside a request (a stray line on stdout) do not end the connection.
    client.onerror = () => undefined;
    const connection = new McpConnection(client, transport);
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await connection.close();
      throw error;
    }
    return connection;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** How a stdio server's process ended (`exit 1`, `SIGKILL`), once it has. */
  get ending(): string | undefined {
    return this.transport instanceof ProcessTransport ? this.transport.ending : undefined;
  }

  /** The stdio server's process id. */
  get pid(): number | undefined {
    return this.transport instanceof ProcessTransport ? this.transport.pid : undefined;
  }

  async listTools(timeoutMs: number): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const listed = await this.client.listTools(cursor === undefined ? {} : { cursor }, { timeout: timeoutMs });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (cursor === undefined) break;
    }
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal): Promise<CallToolResult> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: timeoutMs,
      ...(signal ? { signal } : {}),
    });
    return result as CallToolResult;
  }

  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.client.close();
    } catch {
      // Closing a connection that already failed: nothing left to do.
    }
    await this.transport.close().catch(() => undefined);
  }
}
