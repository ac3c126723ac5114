export { McpServerConfig, DEFAULT_MCP_TIMEOUT_MS, MCP_VARIABLES, fillMcpVariables } from './mcp-server-config.js';
export { MCP_TOOL_PREFIX, isMcpToolName, offeredToolName } from './mcp-tool-name.js';
export { startMcpServers } from './start-mcp-servers.js';
export type { McpCallOutcome, McpServerEntry, McpServers, McpToolDefinition, StartMcpServersOptions } from './start-mcp-servers.js';
export type { ServerCommand } from './process-transport.js';
