import { describe, expect, it } from 'vitest';
import { ECHO_ARGV, runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool } from './index.js';
import { failure } from './expand-tool.test-support.js';

describe('exec: expansion', () => {
  it('keeps every placeholder in its place in argv', () => {
    expect(expandTool({ name: 'p', exec: 'printf [%s][%s] ${a} END' }).command).toEqual(['printf', '[%s][%s]', '${a}', 'END']);
    expect(expandTool({ name: 't', exec: 'tool --name=${n}' }).command).toEqual(['tool', '--name=${n}']);
  });

  it('tokenizes quotes and escapes like a POSIX shell', () => {
    const tool = expandTool({ name: 't', exec: `grep "fixed \\"pattern\\"" 'it''s' a\\ b "\${x}-\${y}" \\$5 "" x\\\ny z\\\n  w` });
    expect(tool.command).toEqual(['grep', 'fixed "pattern"', 'its', 'a b', '${x}-${y}', '$5', '', 'xy', 'z', 'w']);
    expect(tool.parameters.map((parameter) => [parameter.name, parameter.position])).toEqual([
      ['x', 0],
      ['y', 1],
    ]);
  });

  it('lists a repeated placeholder once', () => {
    const tool = expandTool({ name: 'cp', exec: 'cp ${f} ${f}.bak' });
    expect(tool.command).toEqual(['cp', '${f}', '${f}.bak']);
    expect(tool.parameters).toHaveLength(1);
  });

  it('infers the spec 3.7.1 parameters, with stdin last', () => {
    expect(expandTool({ name: 'write_file', description: 'Write', exec: 'tee ${filename}', stdin: 'content' })).toEqual({
      name: 'write_file',
      description: 'Write',
      mode: 'exec',
      command: ['tee', '${filename}'],
      parameters: [
        { name: 'filename', type: 'string', required: true, inject_as: 'argument', position: 0 },
        { name: 'content', type: 'string', required: true, inject_as: 'stdin' },
      ],
      timeout_ms: 120000,
      pass_model_credentials: false,
    });
  });

  it('keeps engine variables out of the parameters', () => {
    const tool = expandTool({ name: 'ls', exec: 'ls ${AGENT_HOME}/config ${CWD} ${dir}' });
    expect(tool.command).toEqual(['ls', '${AGENT_HOME}/config', '${CWD}', '${dir}']);
    expect(tool.parameters.map((parameter) => parameter.name)).toEqual(['dir']);
  });

  it.each([
    ['cat ${file} | wc -l', '|', 'pipe'],
    ['echo ${msg} > ${file}', '>', 'redirection'],
    ['echo ${msg} >> log', '>>', 'redirection'],
    ['sort < ${file}', '<', 'redirection'],
    ['a && b', '&&', 'and-list'],
    ['a || b', '||', 'or-list'],
    ['a; b', ';', 'command separator'],
    ['sleep 1 &', '&', 'background operator'],
    ['echo `id`', '`', 'command substitution'],
    ['echo "`id`"', '`', 'command substitution'],
    ['echo $(id)', '$(', 'command substitution'],
    ['echo "$(id)"', '$(', 'command substitution'],
    ['(cd x)', '(', 'subshell'],
  ])('rejects %j: %s is a shell metacharacter', (exec, operator, kind) => {
    const error = failure({ name: 't', exec }, { file: 'agent.yaml', path: 'tools[3]' });
    expect(error.message).toContain(`agent.yaml: tools[3].exec: Shell metacharacter '${operator}' not allowed in exec: mode.`);
    expect(error.message).toContain(`Expected a program and its arguments only, found a ${kind} '${operator}' at column`);
    expect(error.hint).toContain('Use shell: mode instead');
    expect(error.file).toBe('agent.yaml');
    expect(error.field).toBe('tools[3].exec');
    expect(error.code).toBe('TOOL_DEFINITION_INVALID');
    expect(error.kind).toBe('configuration');
  });

  it('accepts metacharacters as quoted static text', () => {
    expect(expandTool({ name: 't', exec: `echo '|' ">" "a;b" \\& '*'` }).command).toEqual(['echo', '|', '>', 'a;b', '&', '*']);
  });

  it.each([
    ['ls *.log', "Glob pattern character '*' is not expanded in exec: mode.", 'shell: mode'],
    ['ls file?.txt', "Glob pattern character '?' is not expanded in exec: mode.", "Quote it ('?')"],
    ['ls ~/x', "Tilde expansion ('~' at the start of a word) is shell syntax", '${AGENT_HOME}'],
    ['ls # comment', "A comment ('#' at the start of a word) is shell syntax", 'Remove the comment'],
    ['ls $HOME', "Shell variable expansion '$HOME' does not happen in exec: mode.", '\\$ for a literal dollar sign'],
    ['echo "$1"', "Shell variable expansion '$1' does not happen in exec: mode.", 'shell: mode'],
    ["echo $'x'", "Shell quoting '$'' is not supported in exec: mode.", 'Remove the $'],
    ["echo '${x}'", 'A placeholder inside single quotes would not be substituted.', 'Remove the single quotes'],
    ['echo "abc', 'Unterminated double quote.', 'Add the closing "'],
    ["echo 'abc", 'Unterminated single quote.', "Add the closing '"],
    ['echo abc\\', 'A backslash ends the template.', 'Remove the trailing backslash'],
    ['echo ${bad-name}', "Invalid placeholder '${bad-name}'.", 'Rename the parameter'],
    ['echo ${1x}', "Invalid placeholder '${1x}'.", 'Rename the parameter'],
    ['echo ${open', "Unterminated placeholder '${open'.", 'Close the placeholder'],
    ['echo \\${x}', "Literal text '${' cannot be expressed in exec: mode.", 'Use shell: mode'],
    ['${tool} --help', 'The program to run cannot be a parameter (${tool}).', 'Name the program'],
    ['   ', 'The exec: template has no program to run.', 'Write the program first'],
    ['echo ${x:raw}', ':raw modifier is only allowed in shell: mode', 'switch the tool to shell: mode'],
  ])('rejects %j', (exec, message, hint) => {
    const error = failure({ name: 't', exec });
    expect(error.message).toContain(message);
    expect(error.message).toMatch(/Expected .+, found .+\./);
    expect(error.hint).toContain(hint);
  });

  it('allows the program to live under an engine variable', () => {
    expect(expandTool({ name: 't', exec: '${AGENT_HOME}/tools/run.sh ${x}' }).command[0]).toBe('${AGENT_HOME}/tools/run.sh');
  });

  it('names the line and column in a multi-line template', () => {
    expect(failure({ name: 't', exec: 'echo a\necho b | c' }).message).toContain('line 2, column 8');
  });
});

describe('exec: tokenization agrees with a real POSIX shell', () => {
  it.each([
    `a 'b c' "d e" f\\ g`,
    `"x\\"y" 'it''s' "\\$5" "\\a" \\q`,
    `"" '' "a"'b'c`,
    `[%s][%s] x=1 --k=v {a,b} a}b`,
    `x\\\ny z\\\n  w`,
    `tab\there  "new\nline" end`,
  ])('splits %j exactly as sh does', async (template) => {
    const { dir } = workspaceWithMarker();
    const viaShell = await runInvocation(
      { file: 'sh', args: ['-c', `node ${ECHO_ARGV.replace(/ /g, '\\ ')} ${template}`], commandLine: '' },
      dir,
    );
    const tool = expandTool({ name: 't', exec: `node ${ECHO_ARGV.replace(/ /g, '\\ ')} ${template}` });
    const direct = await runInvocation(buildInvocation(tool, {}, { AGENT_HOME: dir, CWD: dir }), dir);
    expect(direct.stdout).toBe(viaShell.stdout);
    expect(JSON.parse(direct.stdout).argv).toEqual(tool.command.slice(2));
  });
});
