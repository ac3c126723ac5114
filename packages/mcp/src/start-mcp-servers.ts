import type { McpServerConfig } from './mcp-server-config.js';
import type { ServerCommand } from './process-transport.js';

/** A configured server and where it was written, for errors that point at it. */
export interface McpServerEntry {
  config: McpServerConfig;
  file: string;
  /** `mcp_servers[2]` */
  field: string;
}

/** A server's tool as the model is offered it. */
export interface McpToolDefinition {
  /** `mcp__<server>__<tool>` */
  name: string;
  serverName: string;
  /** The tool's name as the server gives it. */
  toolName: string;
  description: string;
  /** The server's JSON schema of the arguments, as it gives it. */
  inputSchema: Record<string, unknown>;
}

/** One call's result: the text for the model, and what was sent and received, to be recorded. */
export interface McpCallOutcome {
  /** SUCCESS; FAILED when the server answered with isError; ERROR when no answer came (crash, timeout, refusal). */
  status: 'SUCCESS' | 'FAILED' | 'ERROR';
  /** The whole text for the model; the engine bounds it. */
  text: string;
  request: { server: string; tool: string; arguments: Record<string, unknown> };
  /** The server's result as received, or `{error}` when there was none. */
  response: unknown;
  /** The run was stopped during the call. */
  interrupted: boolean;
}

/** The started servers of a run. */
export interface McpServers {
  readonly tools: McpToolDefinition[];
  find(name: string): McpToolDefinition | undefined;
  /** Calls a tool by its offered name. A server that stopped or timed out is restarted once in the run. */
  call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallOutcome>;
  /** Stops every server (a stdio server's whole process group). */
  close(): Promise<void>;
}

export interface StartMcpServersOptions {
  servers: McpServerEntry[];
  agentHome: string;
  /** The workspace: `${CWD}`, and a stdio server's working directory unless it says `cwd:`. */
  workDir: string;
  /** The environment of stdio servers, as the engine gives its tools (no model credentials, no secret); each server's `env:` goes on top. */
  env: Record<string, string>;
  /** Added for servers that say `pass_model_credentials: true`. */
  credentials?: Record<string, string>;
  /** Each stdio server's stderr goes to `<logDir>/<name>.stderr.log`. */
  logDir: string;
  /** Wraps a stdio server's command (to start it inside the run's sandbox); as it is without. */
  wrap?: (file: string, args: readonly string[], cwd: string) => Promise<ServerCommand>;
  /** Lines for a person: a tool not offered, a server restarted. */
  log?: (line: string) => void;
}

/**
 * Starts a run's MCP servers and lists their tools. The MCP client is loaded only here, so that agents
 * without `mcp_servers:` never pay for it.
 */
export async function startMcpServers(options: StartMcpServersOptions): Promise<McpServers> {
  const { startServers } = await import('./mcp-servers.js');
  return startServers(options);
}
