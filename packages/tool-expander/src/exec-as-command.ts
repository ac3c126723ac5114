import type { ExpandedTool } from './expanded-tool.js';
import { isEngineVariable, PLACEHOLDER_REFERENCE } from './placeholder.js';

const WHOLE_PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * An exec: tool in spec 001 section 4.1's form: the fixed part as `command`, the model's parameters
 * appended after it by position (`bash -c ${script}` -> `["bash", "-c"]` + script at position 0). Only a
 * template whose parameters are all whole arguments at its end has that form; undefined otherwise
 * (`find ${dir} -name x`, `--name=${n}`), since a command: tool can only append values.
 */
export function execAsCommand(tool: ExpandedTool): { command: string[]; positions: Map<string, number> } | undefined {
  const names: string[] = [];
  let end = tool.command.length;
  while (end > 1) {
    const name = WHOLE_PLACEHOLDER.exec(tool.command[end - 1] as string)?.[1];
    if (name === undefined || isEngineVariable(name) || names.includes(name)) break;
    names.unshift(name);
    end -= 1;
  }
  const command = tool.command.slice(0, end);
  const parameterInPrefix = command.some((element) =>
    [...element.matchAll(PLACEHOLDER_REFERENCE)].some((match) => !isEngineVariable(match[1] as string)),
  );
  const argumentCount = tool.parameters.filter((parameter) => parameter.inject_as === 'argument').length;
  if (parameterInPrefix || argumentCount !== names.length) return undefined;
  return { command, positions: new Map(names.map((name, position) => [name, position])) };
}

/** Bare words a template can hold unquoted; anything else is single-quoted. */
const BARE = /^[A-Za-z0-9_@%+=:,./-]+$/;

function quoteText(text: string): string {
  if (BARE.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The exec: template that tokenizes back into the tool's argv: each element's text quoted where it needs
 * it, its `${name}` placeholders left bare next to it (`--name=${n}`, `'a b'${x}`).
 */
export function execTemplate(tool: ExpandedTool): string {
  return tool.command
    .map((element) => {
      if (element === '') return "''";
      let template = '';
      let copied = 0;
      for (const match of element.matchAll(PLACEHOLDER_REFERENCE)) {
        if (match.index > copied) template += quoteText(element.slice(copied, match.index));
        template += match[0];
        copied = match.index + match[0].length;
      }
      if (copied < element.length) template += quoteText(element.slice(copied));
      return template;
    })
    .join(' ');
}
