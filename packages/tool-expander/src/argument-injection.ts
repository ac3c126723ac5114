import type { ExpandedTool } from './expanded-tool.js';
import { argumentReader, type ArgumentReader } from './argument-reader.js';
import { optionCouldHarm, programName } from './option-danger.js';
import { isEngineVariable } from './placeholder.js';
import type { ToolDefinitionWarning } from './tool-definition-error.js';

const WHOLE_PLACEHOLDER = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** A parameter passed whole, with no `--` before it, to a program that may act on it as an option. */
export interface UnguardedArgument {
  name: string;
  /** The program that reads it (`find`, or `script.py` for `python3 script.py ${x}`), as written in the tool. */
  program: string;
  /** The words before it, when a `--` must go after them rather than after the program (`python3 script.py`). */
  before?: string;
}

/**
 * The parameters of an exec: or command: tool that are whole arguments with no `--` before them, of a
 * program whose options can do harm. A program reads an argument that starts with '-' as an option:
 * `find ${directory}` given "-delete" deletes the workspace; `echo ${message}` given "-n" only prints less.
 * After an interpreter's script (`python3 script.py ${x}`) the script reads the value; see argumentReader.
 */
export function unguardedArguments(tool: ExpandedTool): UnguardedArgument[] {
  const words = tool.command;
  const reader = argumentReader(words);
  if (tool.mode === 'command') {
    const guarded = reader.script === undefined ? words.includes('--') : words.slice(reader.script + 1).includes('--');
    if (guarded || !readerCouldHarm(words, words.length, reader)) return [];
    return tool.parameters
      .filter((parameter) => parameter.inject_as === 'argument')
      .map((parameter) => unguarded(parameter.name, words, words.length, reader));
  }
  const found: UnguardedArgument[] = [];
  for (const [index, element] of words.entries()) {
    if (index === 0) continue;
    const name = WHOLE_PLACEHOLDER.exec(element)?.[1];
    if (name === undefined || isEngineVariable(name) || found.some((argument) => argument.name === name)) continue;
    const from = reader.script !== undefined && index > reader.script ? reader.script + 1 : 1;
    if (words.slice(from, index).includes('--')) continue;
    if (readerCouldHarm(words, index, reader)) found.push(unguarded(name, words, index, reader));
  }
  return found;
}

function readsAsScript(index: number, reader: ArgumentReader): reader is ArgumentReader & { script: number } {
  return reader.script !== undefined && index > reader.script;
}

/** Whether an option at `index` could harm: judged for the script when the script reads it, else for the program. */
function readerCouldHarm(words: readonly string[], index: number, reader: ArgumentReader): boolean {
  if (!readsAsScript(index, reader)) return optionCouldHarm(words.slice(0, index));
  return optionCouldHarm([reader.program, ...words.slice(reader.script + 1, index)]);
}

function unguarded(name: string, words: readonly string[], index: number, reader: ArgumentReader): UnguardedArgument {
  if (!readsAsScript(index, reader)) return { name, program: programName(words[0] ?? '') };
  return { name, program: reader.program, before: words.slice(0, index).join(' ') };
}

/** Marks the argument-injection warning, so that an agent's loader can say it once for all its tools. */
export const ARGUMENT_INJECTION_WARNING = 'ARGUMENT_INJECTION';

/**
 * One warning per tool naming the parameters a value starting with '-' would turn into a harmful option. A
 * boolean, or an enum none of whose values starts with '-', cannot; nor can a declared integer or number
 * (at worst `-5`, and its sign is the author's to handle, which `--` would not change).
 */
export function argumentInjectionWarning(
  tool: ExpandedTool,
  unguarded: readonly UnguardedArgument[],
  field: string,
): ToolDefinitionWarning | undefined {
  if (tool.allow_option_values === true) return undefined;
  const exposed = unguarded.filter((argument) => {
    const parameter = tool.parameters.find((candidate) => candidate.name === argument.name);
    return (
      parameter !== undefined &&
      parameter.type === 'string' &&
      (parameter.enum === undefined || parameter.enum.some((value) => String(value).startsWith('-')))
    );
  });
  if (exposed.length === 0) return undefined;
  const list = exposed.map((argument) => `\${${argument.name}}`).join(', ');
  const programs = [...new Set(exposed.map((argument) => argument.program))].join(', ');
  const first = `\${${exposed[0]?.name}}`;
  return {
    field,
    code: ARGUMENT_INJECTION_WARNING,
    subject: `${tool.name} (${list} to ${programs})`,
    message:
      `${list} ${exposed.length === 1 ? 'is a whole argument' : 'are whole arguments'} of ${programs} with no -- before ${exposed.length === 1 ? 'it' : 'them'}: ` +
      `a value starting with '-' would be read as an option (find \${directory} given "-delete" deletes the workspace). ` +
      `Put -- before ${exposed.length === 1 ? 'it' : 'them'} (${exposed[0]?.before ?? exposed[0]?.program} -- ${first}), join it to its option (--name=${first}), declare an enum:, ` +
      `or, if no option of ${programs} can do harm here, say so with allow_option_values: true.`,
  };
}
