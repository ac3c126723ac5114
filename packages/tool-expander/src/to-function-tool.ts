import type { ExpandedTool } from './expanded-tool.js';

export interface FunctionParametersSchema {
  type: 'object';
  properties: Record<string, { type: 'string'; description?: string }>;
  required: string[];
  additionalProperties: false;
}

/** A tool as the OpenAI chat completions API receives it. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: FunctionParametersSchema };
}

/**
 * The function the model sees: every parameter is a string; `required` lists the parameters without
 * a default that were not declared `required: false`. Engine variables are never parameters.
 */
export function toFunctionTool(tool: ExpandedTool): FunctionTool {
  const properties: FunctionParametersSchema['properties'] = {};
  for (const parameter of tool.parameters) {
    properties[parameter.name] =
      parameter.description === undefined ? { type: 'string' } : { type: 'string', description: parameter.description };
  }
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: {
        type: 'object',
        properties,
        required: tool.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        additionalProperties: false,
      },
    },
  };
}
