import { toFunctionTool, type FunctionTool } from '@delta/tool-expander';
import { ASK_HUMAN_TOOL } from './ask-human.js';
import type { LoadedAgent } from './load-agent.js';

/** Tools the engine provides itself; agents cannot define tools with these names. */
export const BUILT_IN_TOOL_NAMES: readonly string[] = ['ask_human'];

/** Whether the agent offers ask_human: yes, unless agent.yaml says `ask_human: false`. */
export function asksHuman(agent: LoadedAgent): boolean {
  return agent.config.ask_human !== false;
}

/** The tools every request carries, as the model sees them: the agent's, then ask_human unless it is off. */
export function requestTools(agent: LoadedAgent): Array<FunctionTool | typeof ASK_HUMAN_TOOL> {
  return [...agent.tools.map(toFunctionTool), ...(asksHuman(agent) ? [ASK_HUMAN_TOOL] : [])];
}
