import { argumentInjectionWarning, unguardedArguments } from './argument-injection.js';
import { expandCommandTool } from './expand-command-tool.js';
import { expandTemplateTool } from './expand-template-tool.js';
import type { ExpandedTool } from './expanded-tool.js';
import { fieldPath } from './field-path.js';
import { safeParseToolDefinition, type ToolDefinitionOptions } from './parse-tool-definition.js';
import { ToolDefinitionError, type ToolDefinitionIssue, type ToolDefinitionWarning } from './tool-definition-error.js';

export type ExpandToolOptions = ToolDefinitionOptions;

export type SafeExpandToolResult =
  | { success: true; tool: ExpandedTool; warnings: ToolDefinitionWarning[] }
  | { success: false; error: ToolDefinitionError; warnings: ToolDefinitionWarning[] };

/**
 * Validates a tool definition as written in agent.yaml and expands it into the one internal form.
 * Never throws for a bad definition: the error is in the result.
 */
export function safeExpandTool(definition: unknown, options: ExpandToolOptions = {}): SafeExpandToolResult {
  const parsed = safeParseToolDefinition(definition, options);
  if (!parsed.success) return parsed;
  const tool = parsed.definition;
  const issues: ToolDefinitionIssue[] = [];
  const warnings: ToolDefinitionWarning[] = [...parsed.warnings];
  const expanded =
    tool.exec !== undefined
      ? expandTemplateTool(tool, 'exec', issues, options.path, warnings)
      : tool.shell !== undefined
        ? expandTemplateTool(tool, 'shell', issues, options.path, warnings)
        : expandCommandTool(tool, issues, options.path);
  if (issues.length > 0 || expanded === undefined) {
    return { success: false, error: new ToolDefinitionError(issues, { file: options.file, tool: tool.name }), warnings: parsed.warnings };
  }
  if (expanded.mode === 'command') {
    const warning = argumentInjectionWarning(expanded, unguardedArguments(expanded), fieldPath(options.path, ['command']));
    if (warning !== undefined) warnings.push(warning);
  }
  for (const warning of warnings.slice(parsed.warnings.length)) options.onWarning?.(warning);
  return { success: true, tool: expanded, warnings };
}

/** Like {@link safeExpandTool}, but throws the {@link ToolDefinitionError}. */
export function expandTool(definition: unknown, options: ExpandToolOptions = {}): ExpandedTool {
  const result = safeExpandTool(definition, options);
  if (!result.success) throw result.error;
  return result.tool;
}
