import { describe, expect, it } from 'vitest';
import type { McpToolDefinition } from '@delta/mcp';
import { checkMcpArguments } from './mcp-arguments.js';

const tool = (inputSchema: Record<string, unknown>): McpToolDefinition => ({
  name: 'mcp__s__t',
  serverName: 's',
  toolName: 't',
  description: '',
  inputSchema,
});

const problemOf = (schema: Record<string, unknown>, args: Record<string, unknown>) => {
  try {
    checkMcpArguments(tool(schema), args);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('checkMcpArguments', () => {
  const schema = {
    type: 'object',
    properties: {
      count: { type: 'integer' },
      mode: { type: 'string', enum: ['fast', 'slow'] },
      label: { type: ['string', 'null'] },
      free: {},
    },
    required: ['count'],
  };

  it('accepts arguments that fit, extra ones included unless the schema forbids them', () => {
    expect(problemOf(schema, { count: 3, mode: 'fast', label: null, free: [1], extra: true })).toBeUndefined();
  });

  it('names every problem at once: a missing required argument, a wrong type, a value outside the enum', () => {
    expect(problemOf(schema, { count: 1.5, mode: 'medium', label: 4 })).toBe(
      "Invalid arguments for tool 'mcp__s__t': Argument 'count' must be an integer, found number 1.5. Argument 'mode' must be one of \"fast\", \"slow\", found the string \"medium\". Argument 'label' must be a string or a null, found number 4. Known arguments: count (integer, required), mode (string, optional), label (string or null, optional), free (optional).",
    );
    expect(problemOf(schema, {})).toMatch(/^Invalid arguments for tool 'mcp__s__t': Missing required argument 'count'\. Known arguments:/);
  });

  it('refuses unknown arguments only when additionalProperties is false', () => {
    expect(problemOf({ ...schema, additionalProperties: false }, { count: 1, colour: 'red' })).toMatch(/Unknown argument 'colour'\./);
  });

  it('takes a schema with no properties, or junk where a schema should be, without throwing anything but the model error', () => {
    expect(problemOf({}, { anything: 1 })).toBeUndefined();
    expect(problemOf({ properties: 'junk', required: 'x' }, {})).toBeUndefined();
    expect(problemOf({ properties: { n: { type: 'rocket' } } }, { n: 1 })).toBeUndefined();
  });
});
