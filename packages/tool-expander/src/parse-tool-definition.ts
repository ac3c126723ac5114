import { suggestName } from '@delta/errors';
import { fieldPath } from './field-path.js';
import { TOOL_DEFINITION_KEYS, TOOL_PARAMETER_KEYS, ToolDefinition } from './tool-definition.js';
import { ToolDefinitionError, type ToolDefinitionIssue, type ToolDefinitionWarning } from './tool-definition-error.js';
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

/**
 * Checks the shape of a tool definition (fields and types, one of exec/shell/command). An unknown key is a
 * warning, or an error when it is close to a known key (`timout_ms`): a misspelled setting must not be
 * silently ignored.
 */
export function safeParseToolDefinition(input: unknown, options: ToolDefinitionOptions = {}): SafeParseToolDefinitionResult {
  const { warnings, misspelled } = findUnknownKeys(input, options.path);
  for (const warning of warnings) options.onWarning?.(warning);
  const result = ToolDefinition.safeParse(input);
  if (result.success && misspelled.length === 0) return { success: true, definition: result.data, warnings };
  const name = typeof input === 'object' && input !== null ? (input as { name?: unknown }).name : undefined;
  const issues = [...misspelled, ...(result.success ? [] : toDefinitionIssues(result.error, input, options.path))];
  const error = new ToolDefinitionError(issues, { file: options.file, tool: typeof name === 'string' ? name : undefined });
  return { success: false, error, warnings };
}

/** Like {@link safeParseToolDefinition}, but throws the {@link ToolDefinitionError}. */
export function parseToolDefinition(input: unknown, options: ToolDefinitionOptions = {}): ToolDefinition {
  const result = safeParseToolDefinition(input, options);
  if (!result.success) throw result.error;
  return result.definition;
}

interface UnknownKeys {
  warnings: ToolDefinitionWarning[];
  /** Keys close to a known key: errors, with the suggestion. */
  misspelled: ToolDefinitionIssue[];
}

/** Unknown keys are reported by name (spec resolution 11); those close to a known key are errors. */
function findUnknownKeys(input: unknown, path: string | undefined): UnknownKeys {
  const found: UnknownKeys = { warnings: [], misspelled: [] };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return found;
  unknownKeys(found, input as Record<string, unknown>, TOOL_DEFINITION_KEYS, [], path, 'tool');
  const parameters = (input as { parameters?: unknown }).parameters;
  if (Array.isArray(parameters)) {
    parameters.forEach((parameter, index) => {
      if (typeof parameter === 'object' && parameter !== null && !Array.isArray(parameter)) {
        unknownKeys(found, parameter as Record<string, unknown>, TOOL_PARAMETER_KEYS, ['parameters', index], path, 'parameter');
      }
    });
  }
  return found;
}

function unknownKeys(
  found: UnknownKeys,
  value: Record<string, unknown>,
  known: readonly string[],
  segments: PropertyKey[],
  path: string | undefined,
  what: string,
): void {
  for (const key of Object.keys(value).filter((key) => !known.includes(key))) {
    const field = fieldPath(path, [...segments, key]);
    const suggestion = suggestName(key, known);
    if (suggestion === undefined) {
      found.warnings.push({ field, message: `Unknown ${what} key '${key}' is ignored. Known keys: ${known.join(', ')}.`, aboutKey: true });
    } else {
      found.misspelled.push({
        field,
        message: `Unknown ${what} key '${key}': did you mean '${suggestion}'?`,
        hint: `Rename ${key} to ${suggestion}; a misspelled key would be ignored, and the setting with it.`,
        aboutKey: true,
      });
    }
  }
}
