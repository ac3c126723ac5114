import { executionSettings } from './execution-settings.js';
import type { ExpandedParameter, ExpandedTool } from './expanded-tool.js';
import { fieldPath } from './field-path.js';
import { checkDeclaredType } from './parameter-type.js';
import { isEngineVariable } from './placeholder.js';
import type { ToolDefinition } from './tool-definition.js';
import type { ToolDefinitionIssue } from './tool-definition-error.js';

/**
 * Expands a v1.1 `command:` tool. Arguments are appended after the command in position order:
 * explicit positions take their slot, the others fill the free slots in declaration order.
 */
export function expandCommandTool(definition: ToolDefinition, issues: ToolDefinitionIssue[], basePath: string | undefined): ExpandedTool {
  const command = definition.command as string[];
  const at = (...segments: PropertyKey[]) => fieldPath(basePath, segments);
  if (command[0] === '') {
    issues.push({
      field: at('command', 0),
      message: 'The program to run is empty.',
      expected: 'a program name or path, such as "ls" or "${AGENT_HOME}/tools/run.sh"',
      found: '""',
      hint: 'Write the program as the first element of command:.',
    });
  }

  const parameters: ExpandedParameter[] = [];
  const entries = definition.parameters ?? [];
  entries.forEach((entry, index) => {
    const here = (key: string) => at('parameters', index, key);
    if (parameters.some((parameter) => parameter.name === entry.name)) {
      issues.push({
        field: here('name'),
        message: `Parameter '${entry.name}' is declared twice.`,
        expected: 'each name once',
        found: `a second entry for '${entry.name}'`,
        hint: 'Rename or remove one of them.',
      });
      return;
    }
    if (isEngineVariable(entry.name)) {
      issues.push({
        field: here('name'),
        message: `'${entry.name}' is an engine variable, not a parameter.`,
        expected: 'a parameter name for the model to fill',
        found: `'${entry.name}'`,
        hint: `Rename the parameter; write \${${entry.name}} in command: to use the engine's path.`,
      });
      return;
    }
    let injectAs = entry.inject_as ?? 'argument';
    if (definition.stdin === entry.name) {
      if (entry.inject_as !== undefined && entry.inject_as !== 'stdin') {
        issues.push({
          field: here('inject_as'),
          message: `Cannot override inject_as for parameter '${entry.name}' (inferred: stdin, explicit: ${entry.inject_as})`,
          hint: `Remove inject_as (stdin: ${entry.name} already says how it is passed), or name another parameter in stdin:.`,
        });
      }
      injectAs = 'stdin';
    }
    if (entry.raw !== undefined) {
      issues.push({
        field: here('raw'),
        message: 'raw applies only to shell: templates.',
        expected: 'no raw key in a command: tool',
        found: `raw: ${String(entry.raw)}`,
        hint: 'Remove raw. command: arguments are always passed as exactly one argument each.',
      });
    }
    if (injectAs === 'option' && entry.option_name === undefined) {
      issues.push({
        field: here('option_name'),
        message: `Parameter '${entry.name}' has inject_as: option but no option_name.`,
        expected: 'the flag written before the value, such as "--port"',
        found: 'nothing',
        hint: `Add option_name: "--${entry.name.replace(/_/g, '-')}".`,
      });
    }
    if (injectAs !== 'option' && entry.option_name !== undefined) {
      issues.push({
        field: here('option_name'),
        message: `option_name applies only to inject_as: option (parameter '${entry.name}' is inject_as: ${injectAs}).`,
        hint: 'Add inject_as: option, or remove option_name.',
      });
    }
    if (injectAs !== 'argument' && entry.position !== undefined) {
      issues.push({
        field: here('position'),
        message: `position applies only to inject_as: argument (parameter '${entry.name}' is inject_as: ${injectAs}).`,
        hint: 'Remove position.',
      });
    }
    const declared = checkDeclaredType(entry, here, issues);
    const parameter: ExpandedParameter = {
      name: entry.name,
      type: declared.type,
      ...(declared.enum === undefined ? {} : { enum: declared.enum }),
      required: entry.required !== false && entry.default === undefined,
      inject_as: injectAs,
    };
    if (entry.description !== undefined) parameter.description = entry.description;
    if (entry.position !== undefined && injectAs === 'argument') parameter.position = entry.position;
    if (entry.option_name !== undefined && injectAs === 'option') parameter.option_name = entry.option_name;
    if (declared.default !== undefined) parameter.default = declared.default;
    parameters.push(parameter);
  });

  if (definition.stdin !== undefined && !parameters.some((parameter) => parameter.name === definition.stdin)) {
    if (isEngineVariable(definition.stdin)) {
      issues.push({
        field: at('stdin'),
        message: `'${definition.stdin}' is an engine variable, not a parameter.`,
        expected: 'a parameter name',
        found: `'${definition.stdin}'`,
        hint: 'Choose a parameter name such as content.',
      });
    } else if (!entries.some((entry) => entry.name === definition.stdin)) {
      parameters.push({ name: definition.stdin, type: 'string', required: true, inject_as: 'stdin' });
    }
  }

  const stdinParameters = parameters.filter((parameter) => parameter.inject_as === 'stdin');
  if (stdinParameters.length > 1) {
    issues.push({
      field: at('parameters'),
      message: 'At most one parameter can be passed on stdin.',
      expected: 'one inject_as: stdin parameter at most',
      found: stdinParameters.map((parameter) => `'${parameter.name}'`).join(', '),
      hint: 'Pass the others as arguments or options.',
    });
  }

  assignPositions(
    parameters,
    entries.map((entry) => entry.name),
    issues,
    basePath,
  );
  return {
    name: definition.name,
    description: definition.description ?? '',
    mode: 'command',
    command: [...command],
    parameters,
    ...executionSettings(definition),
  };
}

function assignPositions(
  parameters: ExpandedParameter[],
  declared: string[],
  issues: ToolDefinitionIssue[],
  basePath: string | undefined,
): void {
  const argumentsInOrder = parameters.filter((parameter) => parameter.inject_as === 'argument');
  const slots: (ExpandedParameter | undefined)[] = new Array(argumentsInOrder.length).fill(undefined);
  for (const parameter of argumentsInOrder) {
    if (parameter.position === undefined) continue;
    const field = fieldPath(basePath, ['parameters', declared.indexOf(parameter.name), 'position']);
    if (parameter.position >= slots.length) {
      issues.push({
        field,
        message: `Position ${parameter.position} of parameter '${parameter.name}' is out of range.`,
        expected: `a position from 0 to ${slots.length - 1} (there are ${slots.length} argument parameters)`,
        found: String(parameter.position),
        hint: 'Positions count the argument parameters from 0.',
      });
    } else if (slots[parameter.position] !== undefined) {
      issues.push({
        field,
        message: `Position ${parameter.position} is taken by both '${slots[parameter.position]?.name}' and '${parameter.name}'.`,
        expected: 'a different position for each argument parameter',
        found: `position ${parameter.position} twice`,
        hint: 'Give each argument its own position, or remove position to keep declaration order.',
      });
    } else {
      slots[parameter.position] = parameter;
    }
  }
  for (const parameter of argumentsInOrder) {
    if (parameter.position !== undefined && slots[parameter.position] === parameter) continue;
    const free = slots.indexOf(undefined);
    if (free === -1) return;
    slots[free] = parameter;
    parameter.position = free;
  }
}
