import type { McpTool } from './mcp-types.js';

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

/**
 * Which tool each offered name goes to, when several would be offered under one (`read.file` and
 * `read_file` both become `read_file`; a name listed twice): a tool whose name needs no change first, then
 * the first listed.
 */
export function ownersOfNames(server: string, tools: McpTool[]): Map<string, McpTool> {
  const owners = new Map<string, McpTool>();
  for (const unchanged of [true, false]) {
    for (const tool of tools) {
      const name = offeredToolName(server, tool.name);
      if (name === undefined || owners.has(name) || (name === `${MCP_TOOL_PREFIX}${server}__${tool.name}`) !== unchanged) continue;
      owners.set(name, tool);
    }
  }
  return owners;
}
