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
}

type Context = 'top' | 'double' | 'substitution' | 'backtick';

interface Occurrence {
  start: number;
  end: number;
  name: string;
  raw: boolean;
  quoted: boolean;
}

/**
 * Rewrites a `shell:` template so that values travel only through `sh -c`'s argument list.
 *
 * Safety does not depend on this scanner: the script is fixed here, before any value exists, and a
 * value can reach it only through a parameter expansion, which the shell never parses as code.
 * The scanner only picks the right quoting: `"$1"` in plain text, `$1` inside double quotes (already
 * quoted there), `$1` for `:raw`. Here-document bodies are scanned as plain text.
 */
export function rewriteShellTemplate(template: string): ShellScript {
  const occurrences: Occurrence[] = [];
  const stack: Context[] = ['top'];
  const depths: number[] = [];
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
      occurrences.push({ start: index, end: end + 1, name: body.name, raw: body.raw, quoted: context === 'double' });
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
    } else if (context === 'substitution' && (char === '(' || char === ')')) {
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
  return { script, engineVariables, placeholders };
}

/** `$1` ... `$9`, then `${10}`: POSIX reads `$10` as `${1}0`. */
export function positionalReference(number: number): string {
  return number < 10 ? `$${number}` : `\${${number}}`;
}

function isWordStart(template: string, index: number): boolean {
  return index === 0 || /[\s;&|()]/.test(template[index - 1] as string);
}
