/** The engine's own paths. They are never model parameters; their values are supplied when a call is built. */
export const ENGINE_VARIABLES = ['AGENT_HOME', 'CWD'] as const;
export type EngineVariable = (typeof ENGINE_VARIABLES)[number];

/** Values for the engine variables when a call is built. */
export interface EngineVariables {
  AGENT_HOME: string;
  CWD: string;
}

/** A parameter name: usable as a `${name}` placeholder and as a JSON schema property. */
export const PARAMETER_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A function name the OpenAI API accepts. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** The body of a placeholder, between `${` and `}`: a name and an optional `:raw` modifier. */
const PLACEHOLDER_BODY = /^([A-Za-z_][A-Za-z0-9_]*)(:raw)?$/;

/** Every `${name}` in an expanded command element (no `:raw`: that lives only in templates). */
export const PLACEHOLDER_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function isEngineVariable(name: string): name is EngineVariable {
  return (ENGINE_VARIABLES as readonly string[]).includes(name);
}

export interface PlaceholderBody {
  name: string;
  raw: boolean;
}

/** Parses the text between `${` and `}`; undefined when it is not a valid placeholder. */
export function parsePlaceholderBody(body: string): PlaceholderBody | undefined {
  const match = PLACEHOLDER_BODY.exec(body);
  if (match === null) return undefined;
  return { name: match[1] as string, raw: match[2] !== undefined };
}

/** Where a template's placeholder ends: the index of its `}`, or -1 when it is not closed on the same line. */
export function findPlaceholderEnd(template: string, start: number): number {
  for (let index = start + 2; index < template.length; index += 1) {
    const char = template[index];
    if (char === '}') return index;
    if (char === '\n') return -1;
  }
  return -1;
}

/** "line 2, column 5" for multi-line templates, "column 5" otherwise (1-based). */
export function describeLocation(template: string, index: number): string {
  const before = template.slice(0, index);
  const line = before.split('\n').length;
  const column = index - before.lastIndexOf('\n');
  return template.includes('\n') ? `line ${line}, column ${column}` : `column ${column}`;
}
