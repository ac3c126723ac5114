import { execAsCommand, execTemplate } from './exec-as-command.js';
import type { ExpandedTool, InjectAs } from './expanded-tool.js';
import type { ParameterType, ParameterValue } from './parameter-type.js';

export interface ExpandedParameterDefinition {
  name: string;
  type: ParameterType;
  enum?: ParameterValue[];
  description?: string;
  required?: false;
  default?: ParameterValue;
  inject_as: InjectAs;
  option_name?: string;
  position?: number;
}

export interface ExpandedDefinition {
  name: string;
  description?: string;
  /** The argv prefix the parameters are appended to; absent only for an exec: tool that has no such form. */
  command?: string[];
  /** Only for an exec: tool with a parameter inside or before fixed text (`find ${dir} -name x`): its template. */
  exec?: string;
  /** With `exec`: the parameter passed on stdin. */
  stdin?: string;
  /** Always shown: the limit the engine applies, declared or default. */
  timeout_ms: number;
  /** Shown only when true, so a tool that receives the model's API key stands out. */
  pass_model_credentials?: true;
  max_output_bytes?: number;
  /** Shown only when true: the author said no option of the program can do harm. */
  allow_option_values?: true;
  parameters: ExpandedParameterDefinition[];
}

/**
 * The expanded tool as a plain object for `delta tool expand` to print as YAML, in the shape of the
 * v1.1 full syntax, that loads back as the same tool: expanding it again gives this same object, and a call
 * runs the same argv. An exec: tool takes spec 001 section 4.1's form (`command` is the fixed part, the
 * parameters are appended by position) when its parameters are whole arguments at its end, and otherwise
 * stays an `exec:` template, since a command: tool can only append values. For shell: tools `:raw` shows
 * only in the script (`$1` instead of `"$1"`).
 */
export function toExpandedDefinition(tool: ExpandedTool): ExpandedDefinition {
  const asCommand = tool.mode === 'exec' ? execAsCommand(tool) : undefined;
  const keepsTemplate = tool.mode === 'exec' && asCommand === undefined;
  const stdin = tool.parameters.find((parameter) => parameter.inject_as === 'stdin');
  return {
    name: tool.name,
    ...(tool.description === '' ? {} : { description: tool.description }),
    ...(keepsTemplate ? { exec: execTemplate(tool) } : { command: [...(asCommand?.command ?? tool.command)] }),
    ...(keepsTemplate && stdin !== undefined ? { stdin: stdin.name } : {}),
    timeout_ms: tool.timeout_ms,
    ...(tool.pass_model_credentials ? { pass_model_credentials: true as const } : {}),
    ...(tool.max_output_bytes === undefined ? {} : { max_output_bytes: tool.max_output_bytes }),
    ...(tool.allow_option_values === true ? { allow_option_values: true as const } : {}),
    parameters: tool.parameters.map((parameter) => {
      const position = asCommand?.positions.get(parameter.name) ?? parameter.position;
      return {
        name: parameter.name,
        type: parameter.type,
        ...(parameter.enum === undefined ? {} : { enum: [...parameter.enum] }),
        ...(parameter.description === undefined ? {} : { description: parameter.description }),
        ...(parameter.required || parameter.default !== undefined ? {} : { required: false as const }),
        ...(parameter.default === undefined ? {} : { default: parameter.default }),
        inject_as: parameter.inject_as,
        ...(parameter.option_name === undefined ? {} : { option_name: parameter.option_name }),
        ...(position === undefined ? {} : { position }),
      };
    }),
  };
}
