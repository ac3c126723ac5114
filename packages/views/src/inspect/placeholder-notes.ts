import type { ExpandedDefinition, ExpandedTool } from '@delta/tool-expander';

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::raw)?\}/g;
const ENGINE_VARIABLES = new Set(['AGENT_HOME', 'CWD']);

/**
 * `delta tool expand`'s note above a tool's command (or exec: template): `${name}` reads the same in an exec:
 * template, where the model's value replaces it, and in a command: tool (`mode`), where it is literal text.
 * One note per placeholder, the engine's own first; none when the tool has no placeholder.
 */
export function placeholderNotes(tool: ExpandedDefinition, mode: ExpandedTool['mode'] | undefined): string[] {
  const parts = tool.command ?? [tool.exec ?? ''];
  const names = [...new Set(parts.flatMap((part) => [...part.matchAll(PLACEHOLDER)].map((match) => match[1]!)))];
  const parameters = new Set(tool.parameters.map((parameter) => parameter.name));
  return [
    ...names.filter((name) => ENGINE_VARIABLES.has(name)).map((name) => `\${${name}} is filled in by the engine`),
    ...names
      .filter((name) => !ENGINE_VARIABLES.has(name))
      .map((name) =>
        mode !== 'command' && parameters.has(name)
          ? `\${${name}} is the model's value for ${name}`
          : `\${${name}} is literal text, passed as written (not a parameter)`,
      ),
  ];
}
