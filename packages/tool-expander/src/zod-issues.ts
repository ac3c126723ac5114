import type { z } from 'zod';
import { describeValue, fieldPath, valueAt } from './field-path.js';
import { PARAMETER_TYPES } from './parameter-type.js';
import type { ToolDefinitionIssue } from './tool-definition-error.js';

const ARTICLES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
};

const FIELD_EXPECTATIONS: Record<string, { expected: string; hint: string }> = {
  name: {
    expected: 'a function name of 1 to 64 letters, digits, underscores or hyphens (^[a-zA-Z0-9_-]{1,64}$)',
    hint: 'Rename the tool, for example read_file; the model calls it by this name.',
  },
  parameterName: {
    expected: 'letters, digits and underscores, not starting with a digit (^[A-Za-z_][A-Za-z0-9_]*$)',
    hint: 'Rename the parameter, for example file_path; it is used as ${file_path} and as a JSON schema property.',
  },
  exec: { expected: 'a command template such as "ls -la ${directory}"', hint: 'Write the command to run.' },
  shell: { expected: 'a shell script such as "cat ${file} | wc -l"', hint: 'Write the script to run.' },
  command: { expected: 'a list of strings such as ["ls", "-la"]', hint: 'List the program and its fixed arguments.' },
  default: {
    expected: 'a string, a number or true or false',
    hint: 'Write one value of the parameter\'s type, for example default: "10", or default: 10 with type: integer.',
  },
  type: {
    expected: `one of ${PARAMETER_TYPES.join(', ')}`,
    hint: `Write type: ${PARAMETER_TYPES.slice(0, -1).join(', ')} or ${PARAMETER_TYPES.at(-1)}, or leave type: out for a string.`,
  },
  inject_as: { expected: 'one of argument, stdin, option', hint: 'Use argument (the default), stdin or option.' },
  position: { expected: 'a whole number from 0', hint: 'Positions count arguments from 0.' },
  option_name: { expected: 'a flag such as "--port"', hint: 'Write the flag that precedes the value.' },
  stdin: {
    expected: 'the name of the parameter passed on standard input (^[A-Za-z_][A-Za-z0-9_]*$)',
    hint: 'Write the parameter name, for example stdin: content.',
  },
  parameters: { expected: 'a list of parameter mappings', hint: 'Write each parameter as - name: ...' },
  description: { expected: 'a string', hint: 'Quote the description.' },
  required: { expected: 'true or false', hint: 'Write required: false for an optional parameter.' },
  timeout_ms: {
    expected: 'a whole number of milliseconds from 1 to 2147483647, such as 120000',
    hint: 'Write timeout_ms: 300000 for five minutes; leave it out for the default of 120000 (two minutes).',
  },
  pass_model_credentials: {
    expected: 'true or false',
    hint: 'Write pass_model_credentials: true only for a tool that must call the model itself, such as one that starts a sub-agent.',
  },
  max_output_bytes: {
    expected: 'a whole number of bytes from 64 to 67108864, such as 20000',
    hint: 'Write max_output_bytes: 20000 to show the model the first and last 10000 bytes of each stream; leave it out for the agent default.',
  },
  raw: { expected: 'true or false', hint: 'Mark raw values in the template instead: ${name:raw}.' },
};

/** Turns zod's issues into issues that name the field path, what was expected, what was found, and the fix. */
export function toDefinitionIssues(error: z.ZodError, input: unknown, basePath: string | undefined): ToolDefinitionIssue[] {
  return error.issues.map((issue) => {
    const segments = issue.path as PropertyKey[];
    const field = fieldPath(basePath, segments);
    const found = describeValue(valueAt(input, segments));
    const key = segments[segments.length - 1];
    const isParameterName = key === 'name' && segments.length > 1;
    const known = FIELD_EXPECTATIONS[isParameterName ? 'parameterName' : String(key)];

    if (segments.length === 0 && issue.code === 'invalid_type') {
      return {
        field,
        message: 'A tool definition must be a mapping.',
        expected: 'a mapping with name, description and one of exec, shell or command',
        found,
        hint: 'Write the tool as a YAML mapping under tools:, for example - name: list_files\n  exec: "ls ${directory}"',
      };
    }
    if (issue.code === 'custom') {
      const modes = ((issue as { params?: { modes?: string[] } }).params?.modes ?? []) as string[];
      return {
        field,
        message: 'Tool must specify exactly one of: exec, shell, or command',
        expected: 'exactly one of exec, shell, command',
        found: modes.length === 0 ? 'none of them' : modes.join(' and '),
        hint:
          modes.length === 0
            ? 'Add exec: "program ${arg}" (no shell), shell: "a | b" (needs a shell) or command: [program, arg].'
            : `Keep one of ${modes.join(', ')}: exec: runs a program directly, shell: runs a script with sh -c, command: is the list form.`,
      };
    }
    if (issue.code === 'invalid_type' && valueAt(input, segments) === undefined) {
      return {
        field,
        message: `Missing required field '${String(key)}'.`,
        expected: known?.expected ?? ARTICLES[issue.expected] ?? issue.expected,
        found,
        ...(known ? { hint: `Add ${String(key)}: ${known.expected}.` } : {}),
      };
    }
    const expected = known?.expected ?? (issue.code === 'invalid_type' ? (ARTICLES[issue.expected] ?? issue.expected) : issue.message);
    const message =
      issue.code === 'too_small'
        ? issue.origin === 'number'
          ? `'${String(key)}' is too small.`
          : `'${String(key)}' is empty.`
        : `'${String(key ?? 'definition')}' has the wrong ${issue.code === 'invalid_type' ? 'type' : 'value'}.`;
    return { field, message, expected, found, ...(known ? { hint: known.hint } : {}) };
  });
}
