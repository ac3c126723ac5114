// What the expand-tool test files share.
import { safeExpandTool } from './index.js';
import type { ToolDefinitionError } from './tool-definition-error.js';

/** The error safeExpandTool gives for `definition`; fails the test when it expands. */
export function failure(definition: unknown, options: { file?: string; path?: string } = {}): ToolDefinitionError {
  const result = safeExpandTool(definition, options);
  if (result.success) throw new Error(`expected an error, got ${JSON.stringify(result.tool)}`);
  return result.error;
}
