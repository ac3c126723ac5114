import { describe, expect, it } from 'vitest';
import { buildInvocation, expandTool, toExpandedDefinition, toFunctionTool } from './index.js';

describe('toFunctionTool', () => {
  it('gives the model descriptions, string types, and required only for parameters without a default', () => {
    const tool = expandTool({
      name: 'search',
      description: 'Search a file',
      exec: 'grep ${pattern} ${AGENT_HOME}/data ${file} ${limit}',
      stdin: 'extra',
      parameters: [
        { name: 'pattern', description: 'A regular expression' },
        { name: 'file', default: 'a.txt', description: 'The file' },
        { name: 'limit', required: false },
      ],
    });
    expect(toFunctionTool(tool)).toEqual({
      type: 'function',
      function: {
        name: 'search',
        description: 'Search a file',
        parameters: {
          type: 'object',
          properties: {
            pattern: { type: 'string', description: 'A regular expression' },
            file: { type: 'string', description: 'The file' },
            limit: { type: 'string' },
            extra: { type: 'string' },
          },
          required: ['pattern', 'extra'],
          additionalProperties: false,
        },
      },
    });
  });

  it('never lists engine variables', () => {
    const tool = expandTool({ name: 'ls', shell: 'ls ${AGENT_HOME} ${CWD}' });
    expect(toFunctionTool(tool).function.parameters).toEqual({ type: 'object', properties: {}, required: [], additionalProperties: false });
  });
});

describe('toExpandedDefinition', () => {
  it('prints the spec 2.2.7 output shape', () => {
    expect(toExpandedDefinition(expandTool({ name: 'count_lines', shell: 'cat ${file} | wc -l' }))).toEqual({
      name: 'count_lines',
      command: ['sh', '-c', 'cat "$1" | wc -l', '--'],
      timeout_ms: 120000,
      parameters: [{ name: 'file', type: 'string', inject_as: 'argument', position: 0 }],
    });
  });

  it('shows descriptions, defaults, optional parameters, options and stdin', () => {
    const tool = expandTool({
      name: 'c',
      description: 'Serve',
      command: ['serve'],
      parameters: [
        { name: 'port', inject_as: 'option', option_name: '--port', default: '80', description: 'Port' },
        { name: 'dir', required: false },
      ],
      stdin: 'body',
    });
    expect(toExpandedDefinition(tool)).toEqual({
      name: 'c',
      description: 'Serve',
      command: ['serve'],
      timeout_ms: 120000,
      parameters: [
        { name: 'port', type: 'string', description: 'Port', default: '80', inject_as: 'option', option_name: '--port' },
        { name: 'dir', type: 'string', required: false, inject_as: 'argument', position: 0 },
        { name: 'body', type: 'string', inject_as: 'stdin' },
      ],
    });
  });

  it('round-trips: a printed shell: or command: tool loads back as the same invocation', () => {
    const variables = { AGENT_HOME: '/a', CWD: '/w' };
    for (const definition of [
      { name: 't', shell: 'grep ${p:raw} ${AGENT_HOME}/x ${f} | wc -l', parameters: [{ name: 'f', default: 'd' }] },
      {
        name: 't',
        command: ['x', '${CWD}'],
        parameters: [{ name: 'b', position: 1 }, { name: 'a' }, { name: 'o', inject_as: 'option', option_name: '-o' }],
      },
      { name: 't', command: ['x'], timeout_ms: 5, pass_model_credentials: true },
    ]) {
      const tool = expandTool(definition);
      const again = expandTool(toExpandedDefinition(tool));
      expect(again).toMatchObject({ timeout_ms: tool.timeout_ms, pass_model_credentials: tool.pass_model_credentials });
      const args = Object.fromEntries(tool.parameters.map((parameter) => [parameter.name, `v-${parameter.name}`]));
      expect(buildInvocation(again, args, variables)).toEqual(buildInvocation(tool, args, variables));
    }
  });
});

describe('the description the model is sent for a tool without one (the documented default)', () => {
  const sent = (definition: Record<string, unknown>) => toFunctionTool(expandTool({ name: 't', ...definition })).function.description;

  it('says what the tool runs, with ${name} where each parameter goes, for exec:, shell: and command: tools', () => {
    expect(sent({ exec: 'echo ${message}' })).toBe('Runs: echo ${message}');
    expect(sent({ exec: 'cat ${file}', description: '  ' })).toBe('Runs: cat ${file}');
    expect(sent({ shell: 'grep ${pattern} ${AGENT_HOME}/x ${file:raw} | wc -l' })).toBe(
      'Runs in sh: grep ${pattern} ${AGENT_HOME}/x ${file} | wc -l',
    );
    expect(
      sent({
        command: ['grep', '-r'],
        parameters: [{ name: 'dir', position: 1 }, { name: 'pattern' }, { name: 'n', inject_as: 'option', option_name: '-m' }],
      }),
    ).toBe('Runs: grep -r -m ${n} ${pattern} ${dir}');
    expect(sent({ exec: 'echo ${m}', description: 'Echo it' })).toBe('Echo it');
  });

  it('keeps it to one line of at most 200 characters', () => {
    const long = sent({ shell: `echo start\n${'x'.repeat(300)}` });
    expect(long).toHaveLength('Runs in sh: '.length + 200);
    expect(long).toMatch(/^Runs in sh: echo start x+…$/);
  });
});
