/** A tool as a server lists it (tools/list); what the engine reads of it. */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** One item of a call's content: text, image, audio, an embedded resource or a link to one. */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType?: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string }
  | { type: string; [key: string]: unknown };

/** A server's answer to tools/call. */
export interface McpCallResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What is wrong with a tools/list result, or undefined when the engine can read it. */
export function toolListProblem(result: unknown): string | undefined {
  if (!isObject(result) || !Array.isArray(result.tools)) return 'it has no list of tools';
  if (result.nextCursor !== undefined && typeof result.nextCursor !== 'string') return 'its nextCursor is not a string';
  for (const [index, tool] of result.tools.entries()) {
    if (!isObject(tool) || typeof tool.name !== 'string') return `tools[${index}] has no name`;
    if (!isObject(tool.inputSchema)) return `tool ${tool.name} has no inputSchema object`;
    for (const key of ['title', 'description'] as const) {
      if (tool[key] !== undefined && typeof tool[key] !== 'string') return `the ${key} of tool ${tool.name} is not a string`;
    }
    if (tool.outputSchema !== undefined && !isObject(tool.outputSchema)) return `the outputSchema of tool ${tool.name} is not an object`;
  }
  return undefined;
}

/** What is wrong with a tools/call result, or undefined when the engine can read it. */
export function callResultProblem(result: unknown): string | undefined {
  if (!isObject(result)) return 'it is not an object';
  if (result.content === undefined) return undefined;
  if (!Array.isArray(result.content)) return 'its content is not a list';
  const index = result.content.findIndex((item) => !isObject(item) || typeof item.type !== 'string');
  return index === -1 ? undefined : `its content[${index}] has no type`;
}
