import type { McpToolDefinition } from '@delta/mcp';
import { toFunctionTool, type FunctionTool } from '@delta/tool-expander';
import { ASK_HUMAN_TOOL } from './ask-human.js';
import type { LoadedAgent } from './load-agent.js';

/** Tools the engine provides itself; agents cannot define tools with these names. */
export const BUILT_IN_TOOL_NAMES: readonly string[] = ['ask_human'];

/** Whether the agent offers ask_human: yes, unless agent.yaml says `ask_human: false`. */
export function asksHuman(agent: LoadedAgent): boolean {
  return agent.config.ask_human !== false;
}

/** An MCP server's tool as the model is offered it: its name under the server's, and the server's own schema. */
export interface McpFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export function mcpFunctionTool(tool: McpToolDefinition): McpFunctionTool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema } };
}

/**
 * The tools every request carries, as the model sees them: the agent's, its MCP servers' (when they are
 * started), then ask_human unless it is off.
 */
export function requestTools(
  agent: LoadedAgent,
  mcpTools: readonly McpToolDefinition[] = [],
): Array<FunctionTool | McpFunctionTool | typeof ASK_HUMAN_TOOL> {
  return [...agent.tools.map(toFunctionTool), ...mcpTools.map(mcpFunctionTool), ...(asksHuman(agent) ? [ASK_HUMAN_TOOL] : [])];
}
