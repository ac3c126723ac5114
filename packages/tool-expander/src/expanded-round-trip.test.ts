import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { buildInvocation, expandTool, toExpandedDefinition, toFunctionTool } from './index.js';

const variables = { AGENT_HOME: '/agent home', CWD: '/work' };

/** Every form a tool can take, exec: with parameters at the end, inside text, before fixed text, or twice. */
const DEFINITIONS: Record<string, unknown>[] = [
  { exec: 'bash -c ${script}' },
  { exec: 'echo ${message}' },
  { exec: 'ls -la -- ${directory}', description: 'List', timeout_ms: 5000 },
  { exec: 'tee -- ${filename}', stdin: 'content', parameters: [{ name: 'content', description: 'What to write' }] },
  { exec: 'grep -n ${pattern} ${file}', parameters: [{ name: 'file', required: false }] },
  { exec: '${AGENT_HOME}/tools/run.sh ${CWD} ${mode} ${target}', parameters: [{ name: 'mode', enum: ['fast', 'slow'] }] },
  { exec: 'find ./${directory} -name ${pattern}' },
  { exec: "printf '[%s] %s\\n' ${a} 'two words' ${b}", allow_option_values: true },
  { exec: 'delta run --agent ${AGENT_HOME}/helper --message=${task}', pass_model_credentials: true },
  { exec: 'cp -- ${file} ${file}.bak' },
  { exec: 'wc -l', stdin: 'text' },
  { exec: 'head -n ${count} -- ${file}', parameters: [{ name: 'count', type: 'integer', default: 10 }] },
  { shell: 'grep ${pattern:raw} ${AGENT_HOME}/x ${file} | wc -l', parameters: [{ name: 'file', default: 'd' }] },
  { shell: 'cat -- ${file} > ${file}.bak', max_output_bytes: 4096 },
  {
    command: ['serve', '${CWD}'],
    parameters: [{ name: 'b', position: 1 }, { name: 'a' }, { name: 'o', inject_as: 'option', option_name: '-o' }],
  },
  { command: ['x'], stdin: 'body' },
];

/** A value for every parameter, with spaces, quotes and a leading dash, and one call leaving optional ones out. */
function calls(tool: ReturnType<typeof expandTool>): Record<string, unknown>[] {
  const value = (name: string, type: string) => (type === 'integer' ? 3 : name === 'mode' ? 'fast' : `-v ${name}'s "value"`);
  const all = Object.fromEntries(tool.parameters.map((parameter) => [parameter.name, value(parameter.name, parameter.type)]));
  const required = Object.fromEntries(
    tool.parameters.filter((parameter) => parameter.required).map((parameter) => [parameter.name, value(parameter.name, parameter.type)]),
  );
  return [all, required];
}

describe('delta tool expand output is a configuration you can paste back', () => {
  it.each(DEFINITIONS.map((definition) => [JSON.stringify(definition), definition] as const))(
    'expanding the expansion of %s gives the same expansion, the same function for the model, and every call the same argv and stdin',
    (_, definition) => {
      const tool = expandTool({ name: 't', ...definition });
      const printed = toExpandedDefinition(tool);
      const again = expandTool(printed);
      expect(toExpandedDefinition(again)).toEqual(printed);
      expect(again).toMatchObject({
        timeout_ms: tool.timeout_ms,
        pass_model_credentials: tool.pass_model_credentials,
        description: tool.description,
      });
      expect(toFunctionTool(again)).toEqual(toFunctionTool(tool));
      expect(again.max_output_bytes).toBe(tool.max_output_bytes);
      expect(again.allow_option_values).toBe(tool.allow_option_values);
      for (const args of calls(tool)) expect(buildInvocation(again, args, variables)).toEqual(buildInvocation(tool, args, variables));
    },
  );

  it('gives spec 001 section 4.1 form for exec: "bash -c ${script}": the fixed part, then the parameter appended', () => {
    expect(toExpandedDefinition(expandTool({ name: 'run_script', exec: 'bash -c ${script}' }))).toEqual({
      name: 'run_script',
      command: ['bash', '-c'],
      timeout_ms: 120000,
      parameters: [{ name: 'script', type: 'string', inject_as: 'argument', position: 0 }],
    });
  });

  it('keeps an exec: template where a parameter sits inside or before fixed text, which command: cannot append', () => {
    const printed = toExpandedDefinition(expandTool({ name: 'f', exec: "find ./${directory} -name '*.txt' -newer ${reference}" }));
    expect(printed).toMatchObject({ exec: "find ./${directory} -name '*.txt' -newer ${reference}" });
    expect(printed).not.toHaveProperty('command');
  });

  it('runs the same: the original and its pasted-back expansion print the same argv for real', () => {
    const tool = expandTool({ name: 't', exec: 'bash -c ${script} ${name}' });
    const again = expandTool(toExpandedDefinition(tool));
    const args = { script: 'printf "<%s>" "$0"', name: '-n ${x} it' };
    const run = (invocation: ReturnType<typeof buildInvocation>) => execFileSync(invocation.file, invocation.args, { encoding: 'utf8' });
    expect(run(buildInvocation(again, args, variables))).toBe('<-n ${x} it>');
    expect(run(buildInvocation(tool, args, variables))).toBe('<-n ${x} it>');
  });
});
