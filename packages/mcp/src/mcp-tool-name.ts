/** The separator between `mcp`, the server's name and the tool's name in what the model is offered. */
export const MCP_TOOL_PREFIX = 'mcp__';

/** The longest function name OpenAI-compatible APIs accept. */
const MAX_FUNCTION_NAME = 64;

/**
 * The name a server's tool is offered under, `mcp__<server>__<tool>`, with any character a function name
 * may not hold turned into `_`; undefined when it would be longer than a function name may be.
 */
export function offeredToolName(server: string, tool: string): string | undefined {
  const name = `${MCP_TOOL_PREFIX}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return name.length > MAX_FUNCTION_NAME ? undefined : name;
}

/** Whether a tool name is one of an MCP server's (the prefix is reserved for them). */
export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}
