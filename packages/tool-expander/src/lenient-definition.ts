import { ToolDefinition } from './tool-definition.js';

/**
 * The parts of a definition that are valid on their own, as a definition, when the whole is not (a typo in
 * one key, a wrong type in another): its keys whose values pass their own schema. With
 * it the template can be checked too, so that every problem of the tool is reported in one round. Undefined
 * when what is left is no definition (no name, or not exactly one of exec, shell and command).
 */
export function lenientDefinition(input: unknown): ToolDefinition | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    const schema = ToolDefinition.shape[key as keyof typeof ToolDefinition.shape];
    if (schema === undefined) continue;
    if (schema.safeParse(value).success) kept[key] = value;
  }
  const parsed = ToolDefinition.safeParse(kept);
  return parsed.success ? parsed.data : undefined;
}
