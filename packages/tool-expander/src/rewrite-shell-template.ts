import type { UnguardedArgument } from './argument-injection.js';
import { optionCouldHarm, programName } from './option-danger.js';
import { describeLocation, findPlaceholderEnd, isEngineVariable, parsePlaceholderBody } from './placeholder.js';
import { TemplateProblem } from './template-problem.js';
import { invalidPlaceholder, type TemplatePlaceholder } from './tokenize-exec-template.js';

export interface ShellScript {
  /** The script for `sh -c`, with every placeholder replaced by a positional parameter reference. */
  script: string;
  /** Engine variables used, in order of first appearance; they take $1, $2, ... first. */
  engineVariables: string[];
  /** Model parameters in order of first appearance; they follow the engine variables. */
  placeholders: TemplatePlaceholder[];
  /** Parameters used somewhere as a whole argument, with no `--` before it, of a command whose options can do harm (not :raw). */
  unguarded: UnguardedArgument[];
}

type Context = 'top' | 'double' | 'substitution' | 'backtick' | 'arithmetic';

/** A here-document whose body starts after the next newline. */
interface PendingHeredoc {
  delimiter: string;
  stripTabs: boolean;
}

interface Occurrence {
  start: number;
  end: number;
  name: string;
  raw: boolean;
  quoted: boolean;
  /** The program it is a whole argument of, with no `--` before it, when a leading '-' would make it a harmful option. */
  unguardedIn: string | undefined;
}

/**
 * Rewrites a `shell:` template so that values travel only through `sh -c`'s argument list.
 *
 * Safety does not depend on this scanner: the script is fixed here, before any value exists, and a
 * value can reach it only through a parameter expansion, which the shell never parses as code.
 * The scanner only picks the right quoting: `"$1"` in plain text, `$1` inside double quotes (already
 * quoted there), `$1` for `:raw`. Where no quoting can be right, the template is refused: inside single
 * quotes (never substituted), inside `$((…))` (the value would be evaluated as arithmetic, `$(("$1" + 1))`
 * fails) and inside a here-document body (where quotes are literal text: `v="$1"` writes the quotes).
 */
export function rewriteShellTemplate(template: string): ShellScript {
  const occurrences: Occurrence[] = [];
  const stack: Context[] = ['top'];
  const depths: number[] = [];
  const heredocs: PendingHeredoc[] = [];
  let index = 0;
  const at = (position: number) => `at ${describeLocation(template, position)}`;

  while (index < template.length) {
    const context = stack[stack.length - 1] as Context;
    const char = template[index] as string;
    const next = template[index + 1];

    if (char === '\\') {
      index += 2;
    } else if (char === "'" && context !== 'double') {
      const end = template.indexOf("'", index + 1);
      if (end === -1) {
        throw new TemplateProblem('Unterminated single quote.', {
          expected: "a closing '",
          found: `an opening ' ${at(index)} that is never closed`,
          hint: "Add the closing ', or write \\' for a literal quote character.",
        });
      }
      const text = template.slice(index + 1, end);
      if (text.includes('${')) {
        throw new TemplateProblem('A placeholder inside single quotes would not be substituted.', {
          expected: 'placeholders outside single quotes',
          found: `'${text}' ${at(index)}`,
          hint: "Close the single quotes before the placeholder and reopen them after it: 's/a/'${b}'/g'. The value is quoted for you.",
        });
      }
      index = end + 1;
    } else if (char === '"') {
      if (context === 'double') stack.pop();
      else stack.push('double');
      index += 1;
    } else if (char === '`') {
      if (context === 'backtick') stack.pop();
      else stack.push('backtick');
      index += 1;
    } else if (char === '\n' && context !== 'double' && heredocs.length > 0) {
      index = skipHeredocBodies(template, index + 1, heredocs.splice(0));
    } else if (char === '<' && next === '<' && template[index + 2] !== '<' && context !== 'double' && context !== 'arithmetic') {
      const heredoc = readHeredocDelimiter(template, index + 2);
      if (heredoc !== undefined) heredocs.push(heredoc.pending);
      index = heredoc === undefined ? index + 2 : heredoc.end;
    } else if (char === '$' && next === '(' && template[index + 2] === '(') {
      stack.push('arithmetic');
      depths.push(2);
      index += 3;
    } else if (char === '$' && next === '(') {
      stack.push('substitution');
      depths.push(1);
      index += 2;
    } else if (char === '$' && next === '{') {
      const end = findPlaceholderEnd(template, index);
      const body = end === -1 ? undefined : parsePlaceholderBody(template.slice(index + 2, end));
      if (end === -1 || body === undefined) throw invalidPlaceholder(template, index, end);
      if (body.raw && isEngineVariable(body.name)) {
        throw new TemplateProblem(`The engine variable \${${body.name}} cannot be :raw.`, {
          expected: `\${${body.name}}`,
          found: `\${${body.name}:raw} ${at(index)}`,
          hint: `Write \${${body.name}}; it is passed as one quoted value.`,
        });
      }
      if (stack.includes('arithmetic')) {
        throw new TemplateProblem('A placeholder inside $((…)) would be evaluated as arithmetic, not passed as a value.', {
          expected: 'placeholders outside arithmetic expansion',
          found: `\${${body.name}${body.raw ? ':raw' : ''}} ${at(index)}`,
          hint: `Declare the parameter type: integer, set a shell variable before the expression and use the variable inside it: n=\${${body.name}}; echo $((n + 1)).`,
        });
      }
      occurrences.push({
        start: index,
        end: end + 1,
        name: body.name,
        raw: body.raw,
        quoted: context === 'double',
        unguardedIn: body.raw || isEngineVariable(body.name) ? undefined : harmfulProgram(template, index, end + 1, context === 'double'),
      });
      index = end + 1;
    } else if (char === '$' && next === '$') {
      index += 2;
    } else if (char === '$' && next !== undefined && /[0-9@*#]/.test(next)) {
      throw new TemplateProblem(`The positional parameter '$${next}' is reserved in shell: mode.`, {
        expected: '${name} placeholders for values',
        found: `'$${next}' ${at(index)}`,
        hint: 'The engine passes placeholder values through $1, $2, ... itself. Use a ${name} placeholder instead.',
      });
    } else if (char === '#' && context !== 'double' && isWordStart(template, index)) {
      const end = template.indexOf('\n', index);
      index = end === -1 ? template.length : end;
    } else if ((context === 'substitution' || context === 'arithmetic') && (char === '(' || char === ')')) {
      const depth = (depths.pop() ?? 1) + (char === '(' ? 1 : -1);
      if (depth === 0) stack.pop();
      else depths.push(depth);
      index += 1;
    } else {
      index += 1;
    }
  }

  const engineVariables: string[] = [];
  const placeholders: TemplatePlaceholder[] = [];
  const rawByName = new Map<string, Occurrence>();
  for (const occurrence of occurrences) {
    const earlier = rawByName.get(occurrence.name);
    if (earlier !== undefined && earlier.raw !== occurrence.raw) {
      throw new TemplateProblem(`Parameter '${occurrence.name}' is used both with and without :raw.`, {
        expected: `every use of '${occurrence.name}' either \${${occurrence.name}} or \${${occurrence.name}:raw}`,
        found: `both, ${at(earlier.start)} and ${at(occurrence.start)}`,
        hint: 'Use the same form everywhere, or give the raw use its own parameter name.',
      });
    }
    if (earlier !== undefined) continue;
    rawByName.set(occurrence.name, occurrence);
    if (isEngineVariable(occurrence.name)) engineVariables.push(occurrence.name);
    else placeholders.push({ name: occurrence.name, raw: occurrence.raw, index: occurrence.start });
  }

  const numbers = new Map<string, number>();
  for (const [offset, name] of engineVariables.entries()) numbers.set(name, offset + 1);
  for (const [offset, placeholder] of placeholders.entries()) numbers.set(placeholder.name, engineVariables.length + offset + 1);

  let script = '';
  let copied = 0;
  for (const occurrence of occurrences) {
    const reference = positionalReference(numbers.get(occurrence.name) as number);
    script += template.slice(copied, occurrence.start);
    script += occurrence.raw || occurrence.quoted ? reference : `"${reference}"`;
    copied = occurrence.end;
  }
  script += template.slice(copied);
  const unguarded: UnguardedArgument[] = [];
  for (const { name, unguardedIn } of occurrences) {
    if (unguardedIn !== undefined && !unguarded.some((argument) => argument.name === name)) unguarded.push({ name, program: unguardedIn });
  }
  return { script, engineVariables, placeholders, unguarded };
}

/**
 * Reads a here-document's delimiter word after `<<` (`EOF`, `-EOF`, `'EOF'`, `"EOF"`, `\EOF`); quotes and
 * backslashes only say the body is not expanded, so they are removed. Undefined when no word follows.
 */
function readHeredocDelimiter(template: string, from: number): { pending: PendingHeredoc; end: number } | undefined {
  let index = from;
  const stripTabs = template[index] === '-';
  if (stripTabs) index += 1;
  while (template[index] === ' ' || template[index] === '\t') index += 1;
  let delimiter = '';
  while (index < template.length && !/[\s;&|<>()]/.test(template[index] as string)) {
    const char = template[index] as string;
    if (char === "'" || char === '"') {
      const close = template.indexOf(char, index + 1);
      const end = close === -1 ? template.length : close;
      delimiter += template.slice(index + 1, end);
      index = end + 1;
    } else if (char === '\\') {
      delimiter += template[index + 1] ?? '';
      index += 2;
    } else {
      delimiter += char;
      index += 1;
    }
  }
  return delimiter === '' ? undefined : { pending: { delimiter, stripTabs }, end: index };
}

/**
 * Skips the bodies of the here-documents started on the line that just ended, refusing a placeholder in
 * any of them: in a body, quotes are literal text, so neither "$1" nor $1 can be the right rewrite for
 * every here-document. Returns the index after the last body's delimiter line.
 */
function skipHeredocBodies(template: string, from: number, heredocs: readonly PendingHeredoc[]): number {
  let index = from;
  for (const heredoc of heredocs) {
    while (index < template.length) {
      const newline = template.indexOf('\n', index);
      const lineEnd = newline === -1 ? template.length : newline;
      const line = template.slice(index, lineEnd);
      if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) {
        index = lineEnd + 1;
        break;
      }
      const placeholder = /\$\{[A-Za-z_][A-Za-z0-9_]*(?::raw)?\}/.exec(line);
      if (placeholder !== null) {
        throw new TemplateProblem('A placeholder inside a here-document would not be passed as one value.', {
          expected: 'placeholders outside here-document bodies',
          found: `${placeholder[0]} at ${describeLocation(template, index + placeholder.index)}, in the here-document ending at ${heredoc.delimiter}`,
          hint: `Set a shell variable before the here-document and use the variable in the body: v=${placeholder[0].replace(':raw', '')}, then $v (or pipe the value in: printf '%s\\n' ${placeholder[0].replace(':raw', '')} | command).`,
        });
      }
      index = lineEnd + 1;
    }
  }
  return index;
}

/** `$1` ... `$9`, then `${10}`: POSIX reads `$10` as `${1}0`. */
export function positionalReference(number: number): string {
  return number < 10 ? `$${number}` : `\${${number}}`;
}

/** The program whose argument the placeholder is, when a value starting with '-' could be a harmful option of it. */
function harmfulProgram(template: string, start: number, end: number, quoted: boolean): string | undefined {
  const words = unguardedArgumentOf(template, start, end, quoted);
  return words !== undefined && optionCouldHarm(words) ? programName(words[0] as string) : undefined;
}

/**
 * The words of its command before the placeholder at `start`..`end`, when it is a whole word (`${x}` or
 * `"${x}"`) that is an argument of that command (not the command itself, not a redirection target) with no
 * `--` word before it. A heuristic on the text of the command: it is for a warning, and errs towards warning.
 */
function unguardedArgumentOf(template: string, start: number, end: number, quoted: boolean): string[] | undefined {
  const before = quoted && template[start - 1] === '"' ? start - 1 : start;
  const after = quoted && template[end] === '"' ? end + 1 : end;
  if (quoted && (before === start || after === end)) return undefined;
  if (before > 0 && !/[\s;&|(`]/.test(template[before - 1] as string)) return undefined;
  if (after < template.length && !/[\s;&|)`<>]/.test(template[after] as string)) return undefined;
  const separator = Math.max(...[';', '&', '|', '\n', '(', '`'].map((char) => template.lastIndexOf(char, before - 1)));
  const words = template
    .slice(separator + 1, before)
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return undefined;
  if (/^\d*(<|>|>>|<>|>\|)$/.test(words.at(-1) as string)) return undefined;
  return words.includes('--') ? undefined : words;
}

function isWordStart(template: string, index: number): boolean {
  return index === 0 || /[\s;&|()]/.test(template[index - 1] as string);
}
