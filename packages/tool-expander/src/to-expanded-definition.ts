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
  command: string[];
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
 * v1.1 full syntax. For exec: tools `command` keeps `${name}` elements in place (see README);
 * for shell: tools `:raw` shows only in the script (`$1` instead of `"$1"`).
 */
export function toExpandedDefinition(tool: ExpandedTool): ExpandedDefinition {
  return {
    name: tool.name,
    ...(tool.description === '' ? {} : { description: tool.description }),
    command: [...tool.command],
    timeout_ms: tool.timeout_ms,
    ...(tool.pass_model_credentials ? { pass_model_credentials: true as const } : {}),
    ...(tool.max_output_bytes === undefined ? {} : { max_output_bytes: tool.max_output_bytes }),
    ...(tool.allow_option_values === true ? { allow_option_values: true as const } : {}),
    parameters: tool.parameters.map((parameter) => ({
      name: parameter.name,
      type: parameter.type,
      ...(parameter.enum === undefined ? {} : { enum: [...parameter.enum] }),
      ...(parameter.description === undefined ? {} : { description: parameter.description }),
      ...(parameter.required || parameter.default !== undefined ? {} : { required: false as const }),
      ...(parameter.default === undefined ? {} : { default: parameter.default }),
      inject_as: parameter.inject_as,
      ...(parameter.option_name === undefined ? {} : { option_name: parameter.option_name }),
      ...(parameter.position === undefined ? {} : { position: parameter.position }),
    })),
  };
}
