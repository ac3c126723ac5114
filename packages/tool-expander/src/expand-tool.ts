import { argumentInjectionWarning, unguardedArguments } from './argument-injection.js';
import { expandCommandTool } from './expand-command-tool.js';
import { expandTemplateTool } from './expand-template-tool.js';
import type { ExpandedTool } from './expanded-tool.js';
import { fieldPath } from './field-path.js';
import { lenientDefinition } from './lenient-definition.js';
import { safeParseToolDefinition, type ToolDefinitionOptions } from './parse-tool-definition.js';
import type { ToolDefinition } from './tool-definition.js';
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
  if (!parsed.success) {
    // The template's own problems (a placeholder in single quotes) are found from the valid parts, and
    // reported with the definition's (a misspelled key): one round of fixes, not two.
    const lenient = lenientDefinition(definition);
    if (lenient === undefined) return parsed;
    const more: ToolDefinitionIssue[] = [];
    expandDefinition(lenient, more, options.path, []);
    // Only the template's: a problem found with a part left out (a parameter that did not parse) may not be one.
    const templates = ['exec', 'shell', 'command'].map((mode) => fieldPath(options.path, [mode]));
    const known = new Set(parsed.error.issues.map((issue) => `${issue.field}\u0000${issue.message}`));
    const added = more.filter(
      (issue) =>
        templates.some((field) => issue.field === field || issue.field.startsWith(`${field}[`)) &&
        !known.has(`${issue.field}\u0000${issue.message}`),
    );
    if (added.length === 0) return parsed;
    const error = new ToolDefinitionError([...parsed.error.issues, ...added], { file: options.file, tool: parsed.error.tool });
    return { success: false, error, warnings: parsed.warnings };
  }
  const tool = parsed.definition;
  const issues: ToolDefinitionIssue[] = [];
  const warnings: ToolDefinitionWarning[] = [...parsed.warnings];
  const expanded = expandDefinition(tool, issues, options.path, warnings);
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

function expandDefinition(
  tool: ToolDefinition,
  issues: ToolDefinitionIssue[],
  path: string | undefined,
  warnings: ToolDefinitionWarning[],
): ExpandedTool | undefined {
  if (tool.exec !== undefined) return expandTemplateTool(tool, 'exec', issues, path, warnings);
  if (tool.shell !== undefined) return expandTemplateTool(tool, 'shell', issues, path, warnings);
  return expandCommandTool(tool, issues, path);
}

/** Like {@link safeExpandTool}, but throws the {@link ToolDefinitionError}. */
export function expandTool(definition: unknown, options: ExpandToolOptions = {}): ExpandedTool {
  const result = safeExpandTool(definition, options);
  if (!result.success) throw result.error;
  return result.tool;
}
