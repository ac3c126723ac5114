import { describe, expect, it } from 'vitest';
import { ECHO_ARGV, runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool, safeExpandTool, ToolArgumentError, toExpandedDefinition, toFunctionTool } from './index.js';
import type { ToolDefinitionError } from './tool-definition-error.js';

const VARIABLES = { AGENT_HOME: '/agent', CWD: '/work' };

const fetchTool = expandTool({
  name: 'fetch',
  description: 'Fetch some lines',
  exec: 'node echo.mjs ${method} ${count} ${ratio} ${verbose} ${label}',
  parameters: [
    { name: 'method', enum: ['GET', 'POST'], description: 'The method' },
    { name: 'count', type: 'integer', default: 10 },
    { name: 'ratio', type: 'number', required: false },
    { name: 'verbose', type: 'boolean', default: false },
    { name: 'label', type: 'string', enum: ['a', 'b'], default: 'a' },
  ],
});

function argumentError(args: Record<string, unknown>): ToolArgumentError {
  try {
    buildInvocation(fetchTool, args, VARIABLES);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolArgumentError);
    return error as ToolArgumentError;
  }
  throw new Error('buildInvocation did not fail');
}

function definitionError(definition: unknown): ToolDefinitionError {
  const result = safeExpandTool(definition, { file: 'agent.yaml', path: 'tools[0]' });
  if (result.success) throw new Error('the definition was accepted');
  return result.error;
}

describe('typed parameters', () => {
  it('give the model a JSON schema with each type and enum; string stays the default', () => {
    expect(toFunctionTool(fetchTool).function.parameters).toEqual({
      type: 'object',
      properties: {
        method: { type: 'string', description: 'The method', enum: ['GET', 'POST'] },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        verbose: { type: 'boolean' },
        label: { type: 'string', enum: ['a', 'b'] },
      },
      required: ['method'],
      additionalProperties: false,
    });
  });

  it('show in the expanded form with their type, enum and typed default', () => {
    expect(
      toExpandedDefinition(fetchTool).parameters.map(({ name, type, enum: values, default: fallback }) => [name, type, values, fallback]),
    ).toEqual([
      ['method', 'string', ['GET', 'POST'], undefined],
      ['count', 'integer', undefined, 10],
      ['ratio', 'number', undefined, undefined],
      ['verbose', 'boolean', undefined, false],
      ['label', 'string', ['a', 'b'], 'a'],
    ]);
  });

  it('reach argv as text, defaults included', async () => {
    const { dir } = workspaceWithMarker();
    const tool = expandTool({
      name: 'echo',
      exec: `node ${ECHO_ARGV} ${'${count}'} ${'${ratio}'} ${'${verbose}'} ${'${big}'}`,
      parameters: [
        { name: 'count', type: 'integer', default: 3 },
        { name: 'ratio', type: 'number' },
        { name: 'verbose', type: 'boolean' },
        { name: 'big', type: 'number' },
      ],
    });
    const invocation = buildInvocation(tool, { ratio: 0.25, verbose: true, big: -1e21 }, VARIABLES);
    const outcome = await runInvocation(invocation, dir);
    expect(JSON.parse(outcome.stdout).argv).toEqual(['3', '0.25', 'true', '-1e+21']);
    expect(buildInvocation(tool, { count: -7, ratio: 2, verbose: false, big: 0 }, VARIABLES).args.slice(1)).toEqual([
      '-7',
      '2',
      'false',
      '0',
    ]);
  });

  it('send a value of the wrong type back to the model as an error it can correct', () => {
    expect(argumentError({ method: 'GET', count: '5' }).problems[0]).toBe('Argument \'count\' must be an integer, found the string "5".');
    expect(argumentError({ method: 'GET', count: 1.5 }).problems[0]).toBe("Argument 'count' must be an integer, found the number 1.5.");
    expect(argumentError({ method: 'GET', count: 2 ** 60 }).problems[0]).toMatch(/^Argument 'count' must be an integer, found the number /);
    expect(argumentError({ method: 'GET', ratio: '0.5' }).problems[0]).toBe('Argument \'ratio\' must be a number, found the string "0.5".');
    expect(argumentError({ method: 'GET', verbose: 'true' }).problems[0]).toBe(
      'Argument \'verbose\' must be true or false, found the string "true".',
    );
    expect(argumentError({ method: 'GET', verbose: 1 }).problems[0]).toBe("Argument 'verbose' must be true or false, found the number 1.");
    expect(argumentError({ method: 'FETCH' }).problems[0]).toBe(
      'Argument \'method\' must be one of "GET" or "POST", found the string "FETCH".',
    );
    expect(argumentError({ method: 'GET', label: 'c' }).problems[0]).toBe(
      'Argument \'label\' must be one of "a" or "b", found the string "c".',
    );
    const error = argumentError({ method: ['GET'] });
    expect(error.problems).toEqual([
      "Argument 'method' must be a string, found an array.",
      'Known arguments: method (one of "GET" or "POST"; required), count (integer, optional), ratio (number, optional), verbose (boolean, optional), label (one of "a" or "b"; optional).',
    ]);
    expect(error.message).toMatch(/^Invalid arguments for tool 'fetch': /);
  });

  it('keep a string parameter lenient: a number or boolean is passed as its text', () => {
    const tool = expandTool({ name: 'echo', exec: 'echo ${text}' });
    expect(buildInvocation(tool, { text: 5 }, VARIABLES).args).toEqual(['5']);
    expect(buildInvocation(tool, { text: false }, VARIABLES).args).toEqual(['false']);
  });

  it('work in command: tools, and for options and stdin', () => {
    const tool = expandTool({
      name: 'serve',
      command: ['server'],
      stdin: 'config',
      parameters: [
        { name: 'port', type: 'integer', inject_as: 'option', option_name: '--port' },
        { name: 'mode', enum: ['dev', 'prod'], default: 'dev' },
        { name: 'config', type: 'number' },
      ],
    });
    expect(buildInvocation(tool, { port: 8080, config: 1.5 }, VARIABLES)).toMatchObject({ args: ['--port', '8080', 'dev'], stdin: '1.5' });
    expect(toFunctionTool(tool).function.parameters.properties).toEqual({
      port: { type: 'integer' },
      mode: { type: 'string', enum: ['dev', 'prod'] },
      config: { type: 'number' },
    });
    expect(() => buildInvocation(tool, { port: '8080', config: 1 }, VARIABLES)).toThrow("Argument 'port' must be an integer");
  });

  it('refuse an unknown type: with the list of the types accepted (issue 46, item 17)', () => {
    const error = definitionError({ name: 'a', exec: 'x ${n}', parameters: [{ name: 'n', type: 'banana' }] });
    expect(error.message).toBe(
      'agent.yaml: tools[0].parameters[0].type: \'type\' has the wrong value. Expected one of string, integer, number, boolean, found "banana".',
    );
    expect(error.hint).toBe('Write type: string, integer, number or boolean, or leave type: out for a string.');
    expect(error.message).not.toContain('only type');
  });

  it('refuse at load an enum or a default that does not fit the type, and a default outside the enum', () => {
    const enumError = definitionError({ name: 'a', exec: 'x ${n}', parameters: [{ name: 'n', type: 'integer', enum: [1, 2.5] }] });
    expect(enumError.message).toBe(
      "agent.yaml: tools[0].parameters[0].enum: The enum of parameter 'n' holds a value that is not an integer. Expected values of type integer, found the number 2.5.",
    );
    const quoted = definitionError({ name: 'a', exec: 'x ${n}', parameters: [{ name: 'n', default: 10 }] });
    expect(quoted.message).toBe(
      "agent.yaml: tools[0].parameters[0].default: The default of parameter 'n' is not a string. Expected a value of type string, found the number 10.",
    );
    expect(quoted.hint).toBe('Quote it (default: "10"), or declare the parameter\'s type (type: integer or number).');
    const outside = definitionError({ name: 'a', exec: 'x ${n}', parameters: [{ name: 'n', enum: ['a', 'b'], default: 'c' }] });
    expect(outside.message).toContain(
      'The default of parameter \'n\' is not one of its enum values. Expected "a" or "b", found the string "c".',
    );
    const command = definitionError({ name: 'a', command: ['x'], parameters: [{ name: 'n', type: 'boolean', default: 'yes' }] });
    expect(command.message).toContain("tools[0].parameters[0].default: The default of parameter 'n' is not true or false.");
  });
});
