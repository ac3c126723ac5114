import type { ExpandedParameter } from './expanded-tool.js';
import { fieldPath } from './field-path.js';
import { checkDeclaredType } from './parameter-type.js';
import { isEngineVariable } from './placeholder.js';
import type { ToolParameter } from './tool-definition.js';
import type { ToolDefinitionIssue } from './tool-definition-error.js';

/**
 * Merges an explicit `parameters:` block into the parameters inferred from an exec: or shell:
 * template (001 section 3.7.1). The template decides how a value is injected (inject_as, position,
 * :raw); the block may only add what the value means: type, enum, description, default and required.
 * Problems are added to `issues`.
 */
export function mergeParameters(
  inferred: readonly ExpandedParameter[],
  explicit: readonly ToolParameter[] | undefined,
  issues: ToolDefinitionIssue[],
  basePath: string | undefined,
): ExpandedParameter[] {
  const merged = new Map(inferred.map((parameter) => [parameter.name, { ...parameter }]));
  const seen = new Set<string>();

  (explicit ?? []).forEach((entry, index) => {
    const at = (key?: string) => fieldPath(basePath, key === undefined ? ['parameters', index] : ['parameters', index, key]);
    const target = merged.get(entry.name);
    if (seen.has(entry.name)) {
      issues.push({
        field: at('name'),
        message: `Parameter '${entry.name}' is declared twice in parameters.`,
        expected: 'each name once',
        found: `a second entry for '${entry.name}'`,
        hint: 'Merge the two entries into one.',
      });
      return;
    }
    seen.add(entry.name);
    if (target === undefined) {
      issues.push(
        isEngineVariable(entry.name)
          ? {
              field: at('name'),
              message: `'${entry.name}' is an engine variable, not a parameter.`,
              expected: `the name of a \${param} placeholder in the template`,
              found: `'${entry.name}'`,
              hint: `Remove this entry: \${${entry.name}} is filled in by the engine, and the model never sees it.`,
            }
          : {
              field: at('name'),
              message: `Parameter '${entry.name}' not found in template`,
              expected: `one of ${listNames(inferred)}`,
              found: `'${entry.name}'`,
              hint: `Add \${${entry.name}} to the template, name it in stdin:, or remove this entry (check the spelling).`,
            },
      );
      return;
    }

    if (entry.inject_as !== undefined && entry.inject_as !== target.inject_as) {
      issues.push({
        field: at('inject_as'),
        message: `Cannot override inject_as for parameter '${entry.name}' (inferred: ${target.inject_as}, explicit: ${entry.inject_as})`,
        hint:
          entry.inject_as === 'stdin'
            ? `Remove \${${entry.name}} from the template and declare it with the tool-level key stdin: ${entry.name}.`
            : `Remove inject_as: the template decides how '${entry.name}' is passed.`,
      });
    }
    if (entry.position !== undefined && entry.position !== target.position) {
      issues.push({
        field: at('position'),
        message: `Cannot override position for parameter '${entry.name}' (inferred: ${target.position ?? 'none'}, explicit: ${entry.position})`,
        hint: 'Remove position: it is the order of the placeholders in the template.',
      });
    }
    if (entry.raw === true && target.raw !== true) {
      issues.push({
        field: at('raw'),
        message: `:raw modifier must be specified in template syntax (\${${entry.name}:raw})`,
        hint: `Remove raw: true and write \${${entry.name}:raw} in the shell: template.`,
      });
    }
    if (entry.raw === false && target.raw === true) {
      issues.push({
        field: at('raw'),
        message: `Cannot remove the :raw modifier of parameter '${entry.name}' in parameters.`,
        hint: `Remove raw: false and write \${${entry.name}} (without :raw) in the template.`,
      });
    }
    if (entry.option_name !== undefined) {
      issues.push({
        field: at('option_name'),
        message: `option_name does not apply to parameter '${entry.name}' (inject_as: ${target.inject_as}).`,
        hint: 'Remove option_name, or write the flag in the template: "--port ${port}".',
      });
    }
    const declared = checkDeclaredType(entry, at, issues);
    target.type = declared.type;
    if (declared.enum !== undefined) target.enum = declared.enum;
    if (entry.description !== undefined) target.description = entry.description;
    if (declared.default !== undefined) target.default = declared.default;
    target.required = entry.required !== false && entry.default === undefined;
  });

  return [...merged.values()];
}

function listNames(parameters: readonly ExpandedParameter[]): string {
  return parameters.length === 0
    ? 'no parameters (the template has no placeholders)'
    : parameters.map((parameter) => `'${parameter.name}'`).join(', ');
}
