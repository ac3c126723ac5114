import { describeLocation, findPlaceholderEnd, isEngineVariable, parsePlaceholderBody } from './placeholder.js';
import { TemplateProblem } from './template-problem.js';

/** A placeholder found in a template, in order of appearance. */
export interface TemplatePlaceholder {
  name: string;
  raw: boolean;
  /** Index of its `$` in the template. */
  index: number;
}

export interface ExecTokens {
  /** The argv, with each placeholder kept in place as `${name}` inside its element. */
  elements: string[];
  placeholders: TemplatePlaceholder[];
}

type Part = { text: string } | { placeholder: string };

const OPERATORS: Record<string, string> = {
  '||': 'or-list',
  '&&': 'and-list',
  '>>': 'redirection',
  '<<': 'here-document',
  '>&': 'redirection',
  '<&': 'redirection',
  '&>': 'redirection',
  '|': 'pipe',
  '&': 'background operator',
  ';': 'command separator',
  '<': 'redirection',
  '>': 'redirection',
  '(': 'subshell',
  ')': 'subshell',
  '`': 'command substitution',
};

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const DOUBLE_QUOTE_ESCAPABLE = new Set(['$', '`', '"', '\\', '\n']);

/**
 * Splits an `exec:` template into argv the way a POSIX shell splits words (quotes, backslashes),
 * keeping `${name}` placeholders in place. Everything that would make a shell do more than split
 * words (operators, expansions, globs, comments) is refused, because exec: never involves a shell.
 */
export function tokenizeExecTemplate(template: string): ExecTokens {
  const elements: string[] = [];
  const placeholders: TemplatePlaceholder[] = [];
  let parts: Part[] = [];
  let inWord = false;
  let index = 0;

  const at = (position: number) => `at ${describeLocation(template, position)} of ${JSON.stringify(template)}`;
  const addText = (text: string) => {
    parts.push({ text });
    inWord = true;
  };
  const endWord = () => {
    if (inWord) elements.push(joinParts(parts, template));
    parts = [];
    inWord = false;
  };
  const readDollar = (position: number): number => {
    const next = template[position + 1];
    if (next === '{') {
      const end = findPlaceholderEnd(template, position);
      const body = end === -1 ? undefined : parsePlaceholderBody(template.slice(position + 2, end));
      if (end === -1 || body === undefined) throw invalidPlaceholder(template, position, end);
      if (body.raw) {
        throw new TemplateProblem(':raw modifier is only allowed in shell: mode', {
          expected: `\${${body.name}}`,
          found: `\${${body.name}:raw} ${at(position)}`,
          hint: `exec: passes every value as exactly one argument, so there is nothing to keep raw. Write \${${body.name}}, or switch the tool to shell: mode if the value must be split by the shell.`,
        });
      }
      if (!isEngineVariable(body.name)) placeholders.push({ name: body.name, raw: false, index: position });
      parts.push({ placeholder: body.name });
      inWord = true;
      return end + 1;
    }
    if (next === '(') throw metacharacter('$(', 'command substitution', position);
    if (next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*|^./.exec(template.slice(position + 1))?.[0] ?? next;
      throw new TemplateProblem(`Shell variable expansion '$${name}' does not happen in exec: mode.`, {
        expected: 'literal text or ${name} placeholders',
        found: `'$${name}' ${at(position)}`,
        hint: `No shell runs, so '$${name}' would reach the program as those literal characters. Use \${AGENT_HOME} or \${CWD} for the engine's paths, a \${param} placeholder for a value from the model, shell: mode for shell variables, or write \\$ for a literal dollar sign.`,
      });
    }
    if (next === "'" || next === '"') {
      throw new TemplateProblem(`Shell quoting '$${next}' is not supported in exec: mode.`, {
        expected: 'plain \'...\' or "..." quotes',
        found: `'$${next}' ${at(position)}`,
        hint: 'Remove the $ before the quote, or write \\$ for a literal dollar sign.',
      });
    }
    addText('$');
    return position + 1;
  };
  const metacharacter = (operator: string, kind: string, position: number) =>
    new TemplateProblem(`Shell metacharacter '${operator}' not allowed in exec: mode.`, {
      expected: 'a program and its arguments only',
      found: `a ${kind} '${operator}' ${at(position)}`,
      hint: `Use shell: mode instead (shell: ${JSON.stringify(template)}), or remove the ${kind}. To pass '${operator}' as literal text, quote it: '${operator}'.`,
    });

  while (index < template.length) {
    const char = template[index] as string;
    if (WHITESPACE.has(char)) {
      endWord();
      index += 1;
    } else if (char === "'") {
      const end = template.indexOf("'", index + 1);
      if (end === -1) throw unterminated("'", index);
      const text = template.slice(index + 1, end);
      const placeholderAt = text.indexOf('${');
      if (placeholderAt !== -1) {
        throw new TemplateProblem('A placeholder inside single quotes would not be substituted.', {
          expected: 'placeholders outside single quotes',
          found: `'${text}' ${at(index)}`,
          hint: 'Remove the single quotes around the placeholder: exec: passes each value as one argument anyway. Use double quotes to join it with fixed text that contains spaces ("--title=My ${title}").',
        });
      }
      addText(text);
      index = end + 1;
    } else if (char === '"') {
      index = readDoubleQuoted(index + 1);
    } else if (char === '\\') {
      const next = template[index + 1];
      if (next === undefined) {
        throw new TemplateProblem('A backslash ends the template.', {
          expected: 'a character after the backslash',
          found: `nothing ${at(index)}`,
          hint: 'Remove the trailing backslash, or write \\\\ for a literal backslash.',
        });
      }
      if (next !== '\n') addText(next); // backslash-newline joins lines, as in a shell
      index += 2;
    } else if (char === '$') {
      index = readDollar(index);
    } else if (char === '*' || char === '?') {
      throw new TemplateProblem(`Glob pattern character '${char}' is not expanded in exec: mode.`, {
        expected: 'literal arguments (no shell expands patterns in exec: mode)',
        found: `'${char}' ${at(index)}`,
        hint: `Quote it ('${char}') to pass it literally, or use shell: mode for pattern expansion (with \${pattern:raw} when the model supplies the pattern).`,
      });
    } else if ((char === '~' || char === '#') && !inWord) {
      const what = char === '~' ? 'Tilde expansion' : 'A comment';
      throw new TemplateProblem(`${what} ('${char}' at the start of a word) is shell syntax, not allowed in exec: mode.`, {
        expected: 'literal arguments',
        found: `'${char}' ${at(index)}`,
        hint:
          char === '~'
            ? "Use ${AGENT_HOME} or ${CWD} for a path, or quote it ('~') to pass it literally."
            : "Remove the comment, or quote it ('#') to pass it literally.",
      });
    } else if (char in OPERATORS || char === '|' || char === '&' || char === ';' || char === '<' || char === '>') {
      const two = template.slice(index, index + 2);
      const operator = two in OPERATORS ? two : char;
      throw metacharacter(operator, OPERATORS[operator] ?? 'shell operator', index);
    } else {
      addText(char);
      index += 1;
    }
  }
  endWord();
  return { elements, placeholders };

  function readDoubleQuoted(start: number): number {
    inWord = true;
    let position = start;
    while (position < template.length) {
      const char = template[position] as string;
      if (char === '"') return position + 1;
      if (char === '\\' && DOUBLE_QUOTE_ESCAPABLE.has(template[position + 1] ?? '')) {
        const next = template[position + 1] as string;
        if (next !== '\n') addText(next);
        position += 2;
      } else if (char === '`') {
        throw metacharacter('`', 'command substitution', position);
      } else if (char === '$') {
        position = readDollar(position);
      } else {
        addText(char);
        position += 1;
      }
    }
    throw unterminated('"', start - 1);
  }

  function unterminated(quote: string, position: number): TemplateProblem {
    return new TemplateProblem(`Unterminated ${quote === "'" ? 'single' : 'double'} quote.`, {
      expected: `a closing ${quote}`,
      found: `an opening ${quote} ${at(position)} that is never closed`,
      hint: `Add the closing ${quote}, or write \\${quote} for a literal quote character.`,
    });
  }
}

function joinParts(parts: Part[], template: string): string {
  let element = '';
  for (const part of parts) {
    if ('placeholder' in part) {
      element += `\${${part.placeholder}}`;
    } else {
      element += part.text;
    }
  }
  // In the expanded form every "${" marks a placeholder, so literal text must not produce one.
  const literal = parts.reduce((text, part) => text + ('text' in part ? part.text : '\u0000'), '');
  if (literal.includes('${')) {
    throw new TemplateProblem("Literal text '${' cannot be expressed in exec: mode.", {
      expected: '${name} placeholders, or literal text without "${"',
      found: `${JSON.stringify(element)} in ${JSON.stringify(template)}`,
      hint: 'In the expanded form "${" always marks a placeholder. Use shell: mode to pass a literal "${".',
    });
  }
  return element;
}

export function invalidPlaceholder(template: string, position: number, end: number): TemplateProblem {
  const text = end === -1 ? (template.slice(position).split('\n')[0] ?? '') : template.slice(position, end + 1);
  return new TemplateProblem(end === -1 ? `Unterminated placeholder '${text}'.` : `Invalid placeholder '${text}'.`, {
    expected: '${name} or ${name:raw}, where name is letters, digits and underscores, not starting with a digit',
    found: `'${text}' at ${describeLocation(template, position)}`,
    hint:
      end === -1
        ? 'Close the placeholder with }.'
        : 'Rename the parameter (for example ${file_name}); in shell: mode use $name without braces for a shell variable.',
  });
}
