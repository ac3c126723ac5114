import { describe, expect, it } from 'vitest';
import { buildInvocation, expandTool, ToolArgumentError, type ExpandedTool } from './index.js';
import { ToolDefinitionError } from './tool-definition-error.js';

const variables = { AGENT_HOME: '/agents/my agent', CWD: '/work/W001' };

function argumentError(tool: ExpandedTool, args: unknown): ToolArgumentError {
  try {
    buildInvocation(tool, args as Record<string, unknown>, variables);
  } catch (error) {
    if (error instanceof ToolArgumentError) return error;
    throw error;
  }
  throw new Error('expected a ToolArgumentError');
}

describe('buildInvocation: exec:', () => {
  it('substitutes each element in place and the engine paths', () => {
    const tool = expandTool({ name: 'p', exec: '${AGENT_HOME}/bin/run printf [%s][%s] ${a} --name=${n} END' });
    const invocation = buildInvocation(tool, { a: 'x y', n: 'v' }, variables);
    expect(invocation).toEqual({
      file: '/agents/my agent/bin/run',
      args: ['printf', '[%s][%s]', 'x y', '--name=v', 'END'],
      commandLine: "'/agents/my agent/bin/run' printf \\[%s\\]\\[%s\\] 'x y' --name\\=v END",
    });
  });

  it('substitutes in one pass: values are never read as placeholders or replacement patterns', () => {
    const tool = expandTool({ name: 'p', exec: 'echo ${a}${b} ${b}' });
    expect(buildInvocation(tool, { a: '${b}', b: "$& $' $1 ${AGENT_HOME}" }, variables).args).toEqual([
      "${b}$& $' $1 ${AGENT_HOME}",
      "$& $' $1 ${AGENT_HOME}",
    ]);
  });

  it('fills defaults, drops the element of an omitted optional, keeps an empty string', () => {
    const tool = expandTool({
      name: 'p',
      exec: 'ls ${dir} --sort=${sort} ${extra} END',
      parameters: [
        { name: 'sort', default: 'name' },
        { name: 'extra', required: false },
      ],
    });
    expect(buildInvocation(tool, { dir: '' }, variables).args).toEqual(['', '--sort=name', 'END']);
    expect(buildInvocation(tool, { dir: 'd', sort: 'size', extra: null }, variables).args).toEqual(['d', '--sort=size', 'END']);
    expect(buildInvocation(tool, { dir: 'd', extra: '-a' }, variables).args).toEqual(['d', '--sort=name', '-a', 'END']);
  });

  it('converts numbers and booleans with String()', () => {
    const tool = expandTool({ name: 'p', exec: 'head -n ${n} ${flag}' });
    expect(buildInvocation(tool, { n: 10, flag: false }, variables).args).toEqual(['-n', '10', 'false']);
  });

  it('returns stdin only when there is a value', () => {
    const tool = expandTool({ name: 'w', exec: 'tee ${f}', stdin: 'content', parameters: [{ name: 'content', required: false }] });
    expect(buildInvocation(tool, { f: 'a', content: 'x\n' }, variables).stdin).toBe('x\n');
    expect(buildInvocation(tool, { f: 'a' }, variables)).not.toHaveProperty('stdin');
    const withNul = buildInvocation(tool, { f: 'a', content: 'a\u0000b' }, variables);
    expect(withNul.stdin).toBe('a\u0000b');
  });
});

describe('buildInvocation: shell:', () => {
  it('appends values after -- by position; an omitted optional is "" so positions never shift', () => {
    const tool = expandTool({ name: 's', shell: 'grep ${pattern} ${file} | wc -l', parameters: [{ name: 'pattern', required: false }] });
    expect(buildInvocation(tool, { file: 'data.txt' }, variables)).toEqual({
      file: 'sh',
      args: ['-c', 'grep "$1" "$2" | wc -l', '--', '', 'data.txt'],
      commandLine: 'sh -c \'grep "$1" "$2" | wc -l\' -- \'\' data.txt',
    });
  });

  it('passes engine paths as arguments and never changes the script', () => {
    const tool = expandTool({ name: 's', shell: 'ls ${AGENT_HOME} ${x}' });
    const invocation = buildInvocation(tool, { x: '${AGENT_HOME}' }, { AGENT_HOME: "/a/'$(x)'", CWD: '/w' });
    expect(invocation.args).toEqual(['-c', 'ls "$1" "$2"', '--', "/a/'$(x)'", '${AGENT_HOME}']);
  });
});

describe('buildInvocation: command:', () => {
  it('appends options (flag and value) then arguments by position; omitted optionals vanish', () => {
    const tool = expandTool({
      name: 'c',
      command: ['${AGENT_HOME}/serve', '--root', '${CWD}'],
      parameters: [
        { name: 'second', position: 1 },
        { name: 'port', inject_as: 'option', option_name: '--port', default: '8080' },
        { name: 'first', position: 0 },
        { name: 'host', inject_as: 'option', option_name: '--host', required: false },
        { name: 'third', required: false },
        { name: 'body', inject_as: 'stdin' },
      ],
    });
    const invocation = buildInvocation(tool, { first: '1', second: '2', body: 'payload' }, variables);
    expect(invocation.file).toBe('/agents/my agent/serve');
    expect(invocation.args).toEqual(['--root', '/work/W001', '--port', '8080', '1', '2']);
    expect(invocation.stdin).toBe('payload');
    expect(buildInvocation(tool, { first: '1', second: '2', host: 'h', third: '3', body: '' }, variables).args).toEqual([
      '--root',
      '/work/W001',
      '--port',
      '8080',
      '--host',
      'h',
      '1',
      '2',
      '3',
    ]);
  });

  it('leaves other ${...} text in a command array alone (v1.1 compatibility)', () => {
    const tool = expandTool({ name: 'c', command: ['sh', '-c', 'echo ${HOME}'] });
    expect(buildInvocation(tool, {}, variables).args).toEqual(['-c', 'echo ${HOME}']);
  });
});

describe('ToolArgumentError', () => {
  const tool = expandTool({ name: 'search', exec: 'grep ${pattern} ${file}', parameters: [{ name: 'file', default: 'a.txt' }] });

  it('names a missing required argument and the known ones', () => {
    const error = argumentError(tool, {});
    expect(error.message).toBe(
      "Invalid arguments for tool 'search': Missing required argument 'pattern'. Known arguments: pattern (required), file (optional).",
    );
    expect(error.field).toBe('pattern');
    expect(error.kind).toBe('model');
    expect(error.code).toBe('TOOL_ARGUMENTS_INVALID');
    expect(error.hint).toContain('JSON object');
  });

  it('names unknown arguments, including prototype names', () => {
    const error = argumentError(tool, JSON.parse('{"pattern":"x","fiel":"y","__proto__":1,"constructor":2}'));
    expect(error.problems).toEqual([
      "Unknown argument 'fiel'.",
      "Unknown argument '__proto__'.",
      "Unknown argument 'constructor'.",
      'Known arguments: pattern (required), file (optional).',
    ]);
  });

  it.each([
    [{ pattern: { a: 1 } }, "Argument 'pattern' must be a string, found an object."],
    [{ pattern: ['a'] }, "Argument 'pattern' must be a string, found an array."],
    [{ pattern: 'a\u0000b' }, "Argument 'pattern' contains a NUL character, which a command-line argument cannot hold."],
    ['{"pattern":"x"}', 'Expected a JSON object of arguments, found string.'],
    [[1], 'Expected a JSON object of arguments, found an array.'],
  ])('rejects %j', (args, message) => {
    expect(argumentError(tool, args).message).toContain(message);
  });

  it('treats missing args as an empty object', () => {
    const none = expandTool({ name: 'now', exec: 'date' });
    expect(buildInvocation(none, undefined as never, variables).file).toBe('date');
    expect(argumentError(none, { x: 1 }).message).toContain('This tool takes no arguments.');
  });

  it('does not treat a parameter named like an Object.prototype member as given', () => {
    const odd = expandTool({ name: 'odd', exec: 'echo ${constructor} ${toString}' });
    expect(argumentError(odd, {}).problems.slice(0, 2)).toEqual([
      "Missing required argument 'constructor'.",
      "Missing required argument 'toString'.",
    ]);
  });
});

describe('a hand-built ExpandedTool', () => {
  it('refuses a placeholder that is not a parameter', () => {
    const tool: ExpandedTool = {
      name: 'h',
      description: '',
      mode: 'exec',
      command: ['echo', '${ghost}'],
      parameters: [],
      timeout_ms: 1000,
      pass_model_credentials: false,
    };
    expect(() => buildInvocation(tool, {}, variables)).toThrow(ToolDefinitionError);
  });
});
