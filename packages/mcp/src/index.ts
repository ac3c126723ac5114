export { McpServerConfig } from './mcp-server-config.js';
export { MCP_TOOL_PREFIX, isMcpToolName } from './mcp-tool-name.js';
export { startMcpServers } from './start-mcp-servers.js';
export type { McpCallOutcome, McpServerEntry, McpServers, McpToolDefinition, StartMcpServersOptions } from './start-mcp-servers.js';
export type { ServerCommand } from './process-transport.js';
