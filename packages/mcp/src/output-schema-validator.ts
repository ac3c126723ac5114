import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '@delta/model-wire';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';

function refuseAll<T>(reason: string): JsonSchemaValidator<T> {
  return () => ({ valid: false, data: undefined, errorMessage: reason });
}

/**
 * The SDK's validator of a tool's structured answers (ajv), bounded: ajv walks a schema and, for a
 * schema that refers to itself, the answer recursively, so JSON nested past MAX_JSON_DEPTH in either
 * would overflow the stack. Such a schema is never compiled (its tool is not offered: offeredTools), and
 * such an answer is judged invalid, saying why.
 */
export class BoundedSchemaValidator implements jsonSchemaValidator {
  private readonly ajv = new AjvJsonSchemaValidator();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (valueNestsDeeperThan(schema, MAX_JSON_DEPTH))
      return refuseAll(`the tool's outputSchema nests more than ${MAX_JSON_DEPTH} levels deep`);
    const validate = this.ajv.getValidator<T>(schema);
    return (input) =>
      valueNestsDeeperThan(input, MAX_JSON_DEPTH)
        ? { valid: false, data: undefined, errorMessage: `the structured content nests more than ${MAX_JSON_DEPTH} levels deep` }
        : validate(input);
  }
}
