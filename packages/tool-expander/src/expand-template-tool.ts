import { argumentInjectionWarning, type UnguardedArgument, unguardedArguments } from './argument-injection.js';
import { executionSettings } from './execution-settings.js';
import type { ExpandedParameter, ExpandedTool } from './expanded-tool.js';
import { fieldPath } from './field-path.js';
import { mergeParameters } from './merge-parameters.js';
import { isEngineVariable, PLACEHOLDER_REFERENCE } from './placeholder.js';
import { rewriteShellTemplate } from './rewrite-shell-template.js';
import type { ToolDefinition } from './tool-definition.js';
import type { ToolDefinitionIssue, ToolDefinitionWarning } from './tool-definition-error.js';
import { TemplateProblem } from './template-problem.js';
import { tokenizeExecTemplate, type TemplatePlaceholder } from './tokenize-exec-template.js';

/** The shell that runs `shell:` templates. */
export const SHELL = 'sh';

/** Expands an `exec:` or `shell:` tool; problems are added to `issues`, warnings to `warnings`. */
export function expandTemplateTool(
  definition: ToolDefinition,
  mode: 'exec' | 'shell',
  issues: ToolDefinitionIssue[],
  basePath: string | undefined,
  warnings: ToolDefinitionWarning[] = [],
): ExpandedTool | undefined {
  const template = definition[mode] as string;
  let command: string[];
  let placeholders: TemplatePlaceholder[];
  let unguarded: UnguardedArgument[] | undefined;
  try {
    if (mode === 'exec') {
      const tokens = tokenizeExecTemplate(template);
      command = tokens.elements;
      placeholders = tokens.placeholders;
      checkProgram(command);
    } else {
      const rewritten = rewriteShellTemplate(template);
      command = [SHELL, '-c', rewritten.script, '--', ...rewritten.engineVariables.map((name) => `\${${name}}`)];
      placeholders = rewritten.placeholders;
      unguarded = rewritten.unguarded;
    }
  } catch (error) {
    if (!(error instanceof TemplateProblem)) throw error;
    issues.push({
      field: fieldPath(basePath, [mode]),
      message: error.message,
      ...(error.expected === undefined ? {} : { expected: error.expected }),
      ...(error.found === undefined ? {} : { found: error.found }),
      ...(error.hint === undefined ? {} : { hint: error.hint }),
    });
    return undefined;
  }

  const inferred: ExpandedParameter[] = [];
  for (const placeholder of placeholders) {
    if (inferred.some((parameter) => parameter.name === placeholder.name)) continue;
    inferred.push({
      name: placeholder.name,
      type: 'string',
      required: true,
      inject_as: 'argument',
      position: inferred.length,
      ...(placeholder.raw ? { raw: true } : {}),
    });
  }

  if (definition.stdin !== undefined) {
    const name = definition.stdin;
    if (isEngineVariable(name)) {
      issues.push({
        field: fieldPath(basePath, ['stdin']),
        message: `'${name}' is an engine variable, not a parameter.`,
        expected: 'the name of a parameter for the model to fill',
        found: `'${name}'`,
        hint: 'Choose a parameter name such as content.',
      });
    } else if (inferred.some((parameter) => parameter.name === name)) {
      issues.push({
        field: fieldPath(basePath, ['stdin']),
        message: `Parameter '${name}' is used both in the template and as stdin.`,
        expected: 'a stdin parameter that does not appear in the template',
        found: `\${${name}} in ${mode}: and stdin: ${name}`,
        hint: `Remove \${${name}} from the template, or name a different parameter in stdin:.`,
      });
    } else {
      inferred.push({ name, type: 'string', required: true, inject_as: 'stdin' });
    }
  }

  const parameters = mergeParameters(inferred, definition.parameters, issues, basePath);
  const tool: ExpandedTool = {
    name: definition.name,
    description: definition.description ?? '',
    mode,
    command,
    parameters,
    ...executionSettings(definition),
  };
  const warning = argumentInjectionWarning(tool, unguarded ?? unguardedArguments(tool), fieldPath(basePath, [mode]));
  if (warning !== undefined) warnings.push(warning);
  return tool;
}

/** The program an exec: tool runs must be fixed by the author, never chosen by the model. */
function checkProgram(command: string[]): void {
  const program = command[0];
  if (program === undefined) {
    throw new TemplateProblem('The exec: template has no program to run.', {
      expected: 'a program and its arguments, such as "ls -la ${directory}"',
      found: 'an empty or blank template',
      hint: 'Write the program first.',
    });
  }
  const chosenByModel = [...program.matchAll(PLACEHOLDER_REFERENCE)]
    .map((match) => match[1] as string)
    .find((name) => !isEngineVariable(name));
  if (chosenByModel !== undefined) {
    throw new TemplateProblem(`The program to run cannot be a parameter (\${${chosenByModel}}).`, {
      expected: 'a fixed program, optionally under ${AGENT_HOME} or ${CWD}',
      found: JSON.stringify(program),
      hint: `Name the program in the template and pass \${${chosenByModel}} as one of its arguments.`,
    });
  }
}
