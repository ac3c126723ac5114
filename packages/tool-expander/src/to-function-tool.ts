import { modelDescription } from './default-description.js';
import type { ExpandedTool } from './expanded-tool.js';
import type { ParameterType, ParameterValue } from './parameter-type.js';

/** The JSON schema of one parameter. */
export interface FunctionParameterSchema {
  type: ParameterType;
  description?: string;
  enum?: ParameterValue[];
}

export interface FunctionParametersSchema {
  type: 'object';
  properties: Record<string, FunctionParameterSchema>;
  required: string[];
  additionalProperties: false;
}

/** A tool as the OpenAI chat completions API receives it. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: FunctionParametersSchema };
}

/**
 * The function the model sees: its description (or, with none, what it runs), each parameter with its JSON type (string unless declared), its
 * description and its enum; `required` lists the parameters without a default that were not declared
 * `required: false`. Engine variables are never parameters.
 */
export function toFunctionTool(tool: ExpandedTool): FunctionTool {
  const properties: FunctionParametersSchema['properties'] = {};
  for (const parameter of tool.parameters) {
    properties[parameter.name] = {
      type: parameter.type,
      ...(parameter.description === undefined ? {} : { description: parameter.description }),
      ...(parameter.enum === undefined ? {} : { enum: [...parameter.enum] }),
    };
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: modelDescription(tool),
      parameters: {
        type: 'object',
        properties,
        required: tool.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        additionalProperties: false,
      },
    },
  };
}
