/** Tools the engine provides itself; agents cannot define tools with these names. */
export const BUILT_IN_TOOL_NAMES: readonly string[] = ['ask_human'];
