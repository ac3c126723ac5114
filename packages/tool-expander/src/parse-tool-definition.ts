import { fieldPath } from './field-path.js';
import { TOOL_DEFINITION_KEYS, TOOL_PARAMETER_KEYS, ToolDefinition } from './tool-definition.js';
import { ToolDefinitionError, type ToolDefinitionWarning } from './tool-definition-error.js';
import { toDefinitionIssues } from './zod-issues.js';

export interface ToolDefinitionOptions {
  /** The file the definition came from, for messages (`agent.yaml`). */
  file?: string;
  /** The definition's path inside the file, for messages (`tools[2]`). */
  path?: string;
  /** Called for each problem that is reported but not fatal, such as an unknown key. */
  onWarning?: (warning: ToolDefinitionWarning) => void;
}

export type SafeParseToolDefinitionResult =
  | { success: true; definition: ToolDefinition; warnings: ToolDefinitionWarning[] }
  | { success: false; error: ToolDefinitionError; warnings: ToolDefinitionWarning[] };

/** Checks the shape of a tool definition (fields and types, one of exec/shell/command). */
export function safeParseToolDefinition(input: unknown, options: ToolDefinitionOptions = {}): SafeParseToolDefinitionResult {
  const warnings = findUnknownKeys(input, options.path);
  for (const warning of warnings) options.onWarning?.(warning);
  const result = ToolDefinition.safeParse(input);
  if (result.success) return { success: true, definition: result.data, warnings };
  const name = typeof input === 'object' && input !== null ? (input as { name?: unknown }).name : undefined;
  const error = new ToolDefinitionError(toDefinitionIssues(result.error, input, options.path), {
    file: options.file,
    tool: typeof name === 'string' ? name : undefined,
  });
  return { success: false, error, warnings };
}

/** Like {@link safeParseToolDefinition}, but throws the {@link ToolDefinitionError}. */
export function parseToolDefinition(input: unknown, options: ToolDefinitionOptions = {}): ToolDefinition {
  const result = safeParseToolDefinition(input, options);
  if (!result.success) throw result.error;
  return result.definition;
}

/** Unknown keys are reported by name and never fatal (spec resolution 11). */
function findUnknownKeys(input: unknown, path: string | undefined): ToolDefinitionWarning[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return [];
  const warnings = unknownKeys(input as Record<string, unknown>, TOOL_DEFINITION_KEYS, [], path, 'tool');
  const parameters = (input as { parameters?: unknown }).parameters;
  if (Array.isArray(parameters)) {
    parameters.forEach((parameter, index) => {
      if (typeof parameter === 'object' && parameter !== null && !Array.isArray(parameter)) {
        warnings.push(...unknownKeys(parameter as Record<string, unknown>, TOOL_PARAMETER_KEYS, ['parameters', index], path, 'parameter'));
      }
    });
  }
  return warnings;
}

function unknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  segments: PropertyKey[],
  path: string | undefined,
  what: string,
): ToolDefinitionWarning[] {
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => ({
      field: fieldPath(path, [...segments, key]),
      message: `Unknown ${what} key '${key}' is ignored. Known keys: ${known.join(', ')}.`,
    }));
}
