import { ConfigurationError } from '@delta/errors';
import type { ConfigProblem } from '@delta/yaml-config';
import { isMcpToolName, MCP_TOOL_PREFIX } from '@delta/mcp';
import { ARGUMENT_INJECTION_WARNING, safeExpandTool, type ExpandedTool } from '@delta/tool-expander';
import { type InjectionWarning, oneArgumentInjectionWarning } from './argument-injection-warning.js';
import { BUILT_IN_TOOL_NAMES } from './built-in-tools.js';
import { ConfigProblems } from './config-problems.js';
import type { ToolSource } from './resolve-imports.js';

/** Where a tool of the merged list was defined. */
export interface ToolOrigin {
  file: string;
  field: string;
}

export interface MergedTools {
  tools: ExpandedTool[];
  origins: Map<string, ToolOrigin>;
  warnings: ConfigProblem[];
}

/** `tools[0].parameters[1].name` -> ['tools', 0, 'parameters', 1, 'name'], to locate it in the YAML. */
function fieldSegments(field: string): PropertyKey[] {
  return [...field.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((match) => (match[2] === undefined ? match[1]! : Number(match[2])));
}

/** Where a field is written: its value, or with `aboutKey` the key itself (an unknown key has no meaningful value). */
function locateField(source: ToolSource, field: string, aboutKey: boolean | undefined) {
  const segments = fieldSegments(field);
  const last = segments.at(-1);
  if (aboutKey === true && typeof last === 'string') return source.locate(segments.slice(0, -1), last);
  return source.locate(segments);
}

function expandAt(source: ToolSource, index: number, warnings: ConfigProblem[], injection: Map<string, InjectionWarning>): ExpandedTool {
  const field = `tools[${index}]`;
  const position = source.locate(['tools', index]);
  const result = safeExpandTool(source.definitions[index], { path: field });
  // A later definition replaces an earlier one's warning along with the tool.
  if (result.success) injection.delete(result.tool.name);
  for (const warning of result.warnings) {
    const at = locateField(source, warning.field, warning.aboutKey) ?? position;
    const problem = {
      file: source.file,
      ...(at ? { line: at.line, column: at.column } : {}),
      field: warning.field,
      message: warning.message,
    };
    if (warning.code === ARGUMENT_INJECTION_WARNING && result.success) {
      injection.set(result.tool.name, { ...problem, subject: warning.subject ?? result.tool.name });
    } else {
      warnings.push(problem);
    }
  }
  if (!result.success) {
    const error = result.error;
    // One problem: point at its field when the YAML has it; several: at the tool's entry, which lists them.
    const only = error.issues.length === 1 ? error.issues[0] : undefined;
    const at = (only === undefined ? undefined : locateField(source, only.field, only.aboutKey)) ?? position;
    const where = at ? `${source.file}:${at.line}:${at.column}` : source.file;
    throw new ConfigurationError(`${where} ${error.message}`, {
      code: error.code,
      file: source.file,
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      cause: error,
    });
  }
  return result.tool;
}

/**
 * Expands every tool of every source and merges them in order: a later definition of a name replaces an
 * earlier one (last write wins; the main file comes last). Within one file a name must be unique.
 */
export function mergeTools(sources: readonly ToolSource[]): MergedTools {
  const merged = new Map<string, ExpandedTool>();
  const origins = new Map<string, ToolOrigin>();
  const warnings: ConfigProblem[] = [];
  const injection = new Map<string, InjectionWarning>();
  // Every tool is checked, so that all the mistakes of a file are reported at once.
  const problems = new ConfigProblems();
  for (const source of sources) {
    const inThisFile = new Map<string, number>();
    source.definitions.forEach((_, index) => {
      problems.attempt(() => mergeOne(source, index, inThisFile));
    });
  }
  problems.throwIfAny('The tools');
  const once = oneArgumentInjectionWarning([...injection.values()]);
  return { tools: [...merged.values()], origins, warnings: once === undefined ? warnings : [...warnings, once] };

  function mergeOne(source: ToolSource, index: number, inThisFile: Map<string, number>): void {
    const tool = expandAt(source, index, warnings, injection);
    const field = `tools[${index}].name`;
    const position = source.locate(['tools', index, 'name']);
    const where = position ? `${source.file}:${position.line}:${position.column}` : source.file;
    if (BUILT_IN_TOOL_NAMES.includes(tool.name)) {
      throw new ConfigurationError(`${where} ${field}: "${tool.name}" is a built-in tool of the engine`, {
        code: 'CONFIG_INVALID',
        file: source.file,
        field,
        hint: `Choose another name; ${BUILT_IN_TOOL_NAMES.join(', ')} ${BUILT_IN_TOOL_NAMES.length === 1 ? 'is' : 'are'} the engine's (turn ask_human off with ask_human: false in agent.yaml).`,
      });
    }
    if (isMcpToolName(tool.name)) {
      throw new ConfigurationError(
        `${where} ${field}: "${tool.name}" starts with ${MCP_TOOL_PREFIX}, which is kept for the tools of MCP servers`,
        {
          code: 'CONFIG_INVALID',
          file: source.file,
          field,
          hint: `Choose a name that does not start with ${MCP_TOOL_PREFIX}; an MCP server's tools are listed under mcp_servers: (docs/mcp.md).`,
        },
      );
    }
    const earlier = inThisFile.get(tool.name);
    if (earlier !== undefined) {
      throw new ConfigurationError(`${where} ${field}: "${tool.name}" is already defined at tools[${earlier}] of the same file`, {
        code: 'CONFIG_INVALID',
        file: source.file,
        field,
        hint: 'Tool names must be unique within a file; rename one of them (a tool may override one from an imported file).',
      });
    }
    inThisFile.set(tool.name, index);
    merged.set(tool.name, tool);
    origins.set(tool.name, { file: source.file, field: `tools[${index}]` });
  }
}
