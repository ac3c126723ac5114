import { describe, expect, it } from 'vitest';
import { ECHO_ARGV, runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool, safeExpandTool, type ToolDefinitionError, type ToolDefinitionWarning } from './index.js';
import { formatIssue } from './tool-definition-error.js';

function failure(definition: unknown, options: { file?: string; path?: string } = {}): ToolDefinitionError {
  const result = safeExpandTool(definition, options);
  if (result.success) throw new Error(`expected an error, got ${JSON.stringify(result.tool)}`);
  return result.error;
}

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

describe('shell: expansion', () => {
  it('produces the spec 4.2 form exactly', () => {
    expect(expandTool({ name: 'count_matches', shell: 'grep ${pattern} ${file} | wc -l' })).toEqual({
      name: 'count_matches',
      description: '',
      mode: 'shell',
      command: ['sh', '-c', 'grep "$1" "$2" | wc -l', '--'],
      parameters: [
        { name: 'pattern', type: 'string', required: true, inject_as: 'argument', position: 0 },
        { name: 'file', type: 'string', required: true, inject_as: 'argument', position: 1 },
      ],
      timeout_ms: 120000,
      pass_model_credentials: false,
    });
  });

  it('produces the spec 4.3 :raw form exactly', () => {
    const tool = expandTool({ name: 'run_docker', shell: 'docker run ${options:raw} ${image}' });
    expect(tool.command).toEqual(['sh', '-c', 'docker run $1 "$2"', '--']);
    expect(tool.parameters[0]).toMatchObject({ name: 'options', raw: true, position: 0 });
    expect(tool.parameters[1]).not.toHaveProperty('raw');
  });

  it('does not double-quote inside double quotes, and reuses a repeated name', () => {
    const tool = expandTool({ name: 't', shell: 'echo "hello ${who}" ${who} "$(cat ${file})" `echo ${file}`' });
    expect(tool.command[2]).toBe('echo "hello $1" "$1" "$(cat "$2")" `echo "$2"`');
  });

  it('leaves single-quoted text, comments and shell variables alone', () => {
    const tool = expandTool({ name: 't', shell: "awk '{print $1}' ${file} # uses ${nothing}\necho $HOME \\$1 $$" });
    expect(tool.command[2]).toBe('awk \'{print $1}\' "$1" # uses ${nothing}\necho $HOME \\$1 $$');
    expect(tool.parameters.map((parameter) => parameter.name)).toEqual(['file']);
  });

  it('accepts arithmetic and here-documents without placeholders, with placeholders around them', () => {
    const tool = expandTool({
      name: 't',
      shell:
        'n=${n}; echo $((n + 1)) $(( (2) << 1 )) ${after}\ncat <<EOF > ${file}\nline $n\nEOF\ncat <<- "X" <<Y\n\tx\n\tX\ny\nY\necho ${file}',
    });
    expect(tool.command[2]).toBe(
      'n="$1"; echo $((n + 1)) $(( (2) << 1 )) "$2"\ncat <<EOF > "$3"\nline $n\nEOF\ncat <<- "X" <<Y\n\tx\n\tX\ny\nY\necho "$3"',
    );
    expect(tool.parameters.map((parameter) => parameter.name)).toEqual(['n', 'after', 'file']);
  });

  it('runs the suggested fixes for arithmetic and here-documents as meant', async () => {
    const { dir } = workspaceWithMarker();
    const tool = expandTool({
      name: 't',
      shell: 'n=${n}; v=${v}; echo $((n + 1)); cat <<EOF\nv=$v\nEOF',
      parameters: [{ name: 'n', type: 'integer' }],
    });
    const outcome = await runInvocation(buildInvocation(tool, { n: 41, v: 'hello "$(id)"' }, { AGENT_HOME: dir, CWD: dir }), dir);
    expect(outcome.stdout).toBe('42\nv=hello "$(id)"\n');
  });

  it('keeps a multi-line script whole', () => {
    expect(expandTool({ name: 't', shell: 'export VAR=${value}\necho "Processing..."\n./script.sh "$VAR"\n' }).command[2]).toBe(
      'export VAR="$1"\necho "Processing..."\n./script.sh "$VAR"\n',
    );
  });

  it('uses ${10} from the tenth parameter on (POSIX reads $10 as ${1}0)', () => {
    const names = Array.from({ length: 11 }, (_, index) => `p${index}`);
    const tool = expandTool({ name: 't', shell: `echo ${names.map((name) => `\${${name}}`).join(' ')}` });
    expect(tool.command[2]).toBe('echo "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "${11}"');
  });

  it('passes engine variables as arguments after --, never as script text', () => {
    const tool = expandTool({ name: 't', shell: 'cat ${CWD}/a ${file} "${AGENT_HOME}/b" ${CWD}' });
    expect(tool.command).toEqual(['sh', '-c', 'cat "$1"/a "$3" "$2/b" "$1"', '--', '${CWD}', '${AGENT_HOME}']);
    expect(tool.parameters).toEqual([{ name: 'file', type: 'string', required: true, inject_as: 'argument', position: 0 }]);
  });

  it.each([
    ["sed 's/${a}/b/'", 'A placeholder inside single quotes would not be substituted.'],
    ['echo $1', "The positional parameter '$1' is reserved in shell: mode."],
    ['echo "$@"', "The positional parameter '$@' is reserved in shell: mode."],
    ['echo ${x:-default}', "Invalid placeholder '${x:-default}'."],
    ['echo ${x} ${x:raw}', "Parameter 'x' is used both with and without :raw."],
    ['ls ${AGENT_HOME:raw}', 'The engine variable ${AGENT_HOME} cannot be :raw.'],
    ["echo 'open", 'Unterminated single quote.'],
    ['echo $((${n} + 1))', 'A placeholder inside $((…)) would be evaluated as arithmetic, not passed as a value.'],
    ['echo "$(( (${n:raw}) * 2 ))"', 'A placeholder inside $((…)) would be evaluated as arithmetic'],
    ['echo $(( $(echo ${n}) + 1 ))', 'A placeholder inside $((…)) would be evaluated as arithmetic'],
    ['cat <<EOF\nv=${v}\nEOF', 'A placeholder inside a here-document would not be passed as one value.'],
    ["cat <<-'END' > out\n\tkeep\n\t${v}\n\tEND", 'A placeholder inside a here-document'],
    ['x=$(cat <<EOF\n${CWD}\nEOF\n)', 'A placeholder inside a here-document'],
  ])('rejects %j', (shell, message) => {
    const error = failure({ name: 't', shell }, { path: 'tools[0]' });
    expect(error.message).toContain(`tools[0].shell: ${message}`);
    expect(error.hint).toBeTruthy();
  });
});

describe('parameter merging (001 section 3.7.1)', () => {
  it('adds description, default and required, and keeps the inferred structure', () => {
    const tool = expandTool({
      name: 'search_tool',
      exec: 'grep ${pattern} ${file}',
      parameters: [
        { name: 'file', description: 'File to search in', default: './data.txt' },
        { name: 'pattern', description: 'Search pattern (regex supported)', type: 'string', inject_as: 'argument', position: 0 },
      ],
    });
    expect(tool.parameters).toEqual([
      {
        name: 'pattern',
        type: 'string',
        description: 'Search pattern (regex supported)',
        required: true,
        inject_as: 'argument',
        position: 0,
      },
      {
        name: 'file',
        type: 'string',
        description: 'File to search in',
        default: './data.txt',
        required: false,
        inject_as: 'argument',
        position: 1,
      },
    ]);
    expect(expandTool({ name: 't', exec: 'ls ${dir}', parameters: [{ name: 'dir', required: false }] }).parameters[0]?.required).toBe(
      false,
    );
  });

  it('describes an external stdin parameter', () => {
    const tool = expandTool({
      name: 'write_tool',
      exec: 'tee ${filename}',
      stdin: 'content',
      parameters: [{ name: 'content', description: 'Content to write', inject_as: 'stdin' }],
    });
    expect(tool.parameters[1]).toEqual({
      name: 'content',
      type: 'string',
      description: 'Content to write',
      required: true,
      inject_as: 'stdin',
    });
  });

  it.each([
    [
      { shell: 'cat ${file} | wc -l', parameters: [{ name: 'file', inject_as: 'stdin' }] },
      "Cannot override inject_as for parameter 'file' (inferred: argument, explicit: stdin)",
      'parameters[0].inject_as',
      'stdin: file',
    ],
    [
      { exec: 'tee ${f}', stdin: 'c', parameters: [{ name: 'c', inject_as: 'argument' }] },
      "Cannot override inject_as for parameter 'c' (inferred: stdin, explicit: argument)",
      'parameters[0].inject_as',
      'Remove inject_as',
    ],
    [
      { exec: 'echo ${message}', parameters: [{ name: 'unknown_param' }] },
      "Parameter 'unknown_param' not found in template",
      'parameters[0].name',
      'Add ${unknown_param}',
    ],
    [
      { shell: 'docker run ${flags} ${image}', parameters: [{ name: 'flags', raw: true }] },
      ':raw modifier must be specified in template syntax (${flags:raw})',
      'parameters[0].raw',
      '${flags:raw}',
    ],
    [
      { shell: 'docker run ${flags:raw}', parameters: [{ name: 'flags', raw: false }] },
      "Cannot remove the :raw modifier of parameter 'flags'",
      'parameters[0].raw',
      'without :raw',
    ],
    [
      { exec: 'cp ${a} ${b}', parameters: [{ name: 'b', position: 0 }] },
      "Cannot override position for parameter 'b' (inferred: 1, explicit: 0)",
      'parameters[0].position',
      'Remove position',
    ],
    [
      { exec: 'tee ${a}', stdin: 'c', parameters: [{ name: 'c', position: 1 }] },
      "Cannot override position for parameter 'c' (inferred: none, explicit: 1)",
      'parameters[0].position',
      'Remove position',
    ],
    [
      { exec: 'ls ${a}', parameters: [{ name: 'a', option_name: '--a' }] },
      "option_name does not apply to parameter 'a' (inject_as: argument)",
      'parameters[0].option_name',
      '--port ${port}',
    ],
    [
      { exec: 'ls ${a}', parameters: [{ name: 'a' }, { name: 'a' }] },
      "Parameter 'a' is declared twice in parameters.",
      'parameters[1].name',
      'Merge',
    ],
    [
      { exec: 'ls ${AGENT_HOME}', parameters: [{ name: 'AGENT_HOME' }] },
      "'AGENT_HOME' is an engine variable, not a parameter.",
      'parameters[0].name',
      'filled in by the engine',
    ],
    [
      { exec: 'tee ${content}', stdin: 'content' },
      "Parameter 'content' is used both in the template and as stdin.",
      'stdin',
      'Remove ${content}',
    ],
    [{ exec: 'wc -l', stdin: 'CWD' }, "'CWD' is an engine variable, not a parameter.", 'stdin', 'content'],
  ])('rejects %j', (fields, message, field, hint) => {
    const error = failure({ name: 'bad_tool', ...fields }, { file: 'tools/x.yaml', path: 'tools[1]' });
    expect(error.message).toContain(`tools/x.yaml: tools[1].${field}: ${message}`);
    expect(error.field).toBe(`tools[1].${field}`);
    expect(error.hint).toContain(hint);
  });

  it('reports every merge problem at once', () => {
    const error = failure(
      { name: 'bad_tool', shell: 'grep ${pattern} ${file}', parameters: [{ name: 'pattern', inject_as: 'stdin' }, { name: 'nope' }] },
      { file: 'agent.yaml', path: 'tools[0]' },
    );
    expect(error.issues).toHaveLength(2);
    expect(error.message).toBe(
      "agent.yaml: tool 'bad_tool' has 2 problems:\n" +
        "  - tools[0].parameters[0].inject_as: Cannot override inject_as for parameter 'pattern' (inferred: argument, explicit: stdin)\n" +
        "  - tools[0].parameters[1].name: Parameter 'nope' not found in template. Expected one of 'pattern', 'file', found 'nope'.",
    );
    expect(error.hint).toContain('tools[0].parameters[1].name: Add ${nope}');
  });
});

describe('command: (v1.1) expansion', () => {
  it('resolves positions: explicit slots first, the rest in declaration order', () => {
    const tool = expandTool({
      name: 'list_files',
      description: 'List files in directory',
      command: ['ls', '-la'],
      parameters: [
        { name: 'a', type: 'string' },
        { name: 'b', position: 0 },
        { name: 'port', inject_as: 'option', option_name: '--port', required: false },
        { name: 'c' },
      ],
      stdin: 'body',
    });
    expect(tool.mode).toBe('command');
    expect(tool.command).toEqual(['ls', '-la']);
    expect(tool.parameters.map((parameter) => [parameter.name, parameter.inject_as, parameter.position])).toEqual([
      ['a', 'argument', 1],
      ['b', 'argument', 0],
      ['port', 'option', undefined],
      ['c', 'argument', 2],
      ['body', 'stdin', undefined],
    ]);
    expect(tool.parameters[2]).toMatchObject({ option_name: '--port', required: false });
  });

  it.each([
    [{ command: [''] }, 'command[0]', 'The program to run is empty.'],
    [
      { command: ['x'], parameters: [{ name: 'p', inject_as: 'option' }] },
      'parameters[0].option_name',
      "Parameter 'p' has inject_as: option but no option_name.",
    ],
    [
      { command: ['x'], parameters: [{ name: 'p', option_name: '--p' }] },
      'parameters[0].option_name',
      'option_name applies only to inject_as: option',
    ],
    [
      { command: ['x'], parameters: [{ name: 'p', inject_as: 'stdin', position: 0 }] },
      'parameters[0].position',
      'position applies only to inject_as: argument',
    ],
    [{ command: ['x'], parameters: [{ name: 'p', raw: true }] }, 'parameters[0].raw', 'raw applies only to shell: templates.'],
    [
      { command: ['x'], parameters: [{ name: 'p', position: 3 }] },
      'parameters[0].position',
      "Position 3 of parameter 'p' is out of range.",
    ],
    [
      {
        command: ['x'],
        parameters: [
          { name: 'p', position: 0 },
          { name: 'q', position: 0 },
        ],
      },
      'parameters[1].position',
      "Position 0 is taken by both 'p' and 'q'.",
    ],
    [
      {
        command: ['x'],
        parameters: [
          { name: 'p', inject_as: 'stdin' },
          { name: 'q', inject_as: 'stdin' },
        ],
      },
      'parameters',
      'At most one parameter can be passed on stdin.',
    ],
    [{ command: ['x'], parameters: [{ name: 'p' }, { name: 'p' }] }, 'parameters[1].name', "Parameter 'p' is declared twice."],
    [{ command: ['x'], parameters: [{ name: 'CWD' }] }, 'parameters[0].name', "'CWD' is an engine variable, not a parameter."],
    [
      { command: ['x'], stdin: 'p', parameters: [{ name: 'p', inject_as: 'option', option_name: '-p' }] },
      'parameters[0].inject_as',
      "Cannot override inject_as for parameter 'p' (inferred: stdin, explicit: option)",
    ],
  ])('rejects %j', (fields, field, message) => {
    const error = failure({ name: 't', ...fields }, { path: 'tools[0]' });
    expect(error.message).toContain(`tools[0].${field}: ${message}`);
    expect(error.hint).toBeTruthy();
  });
});

describe('the definition shape', () => {
  it.each([
    [{ name: 'a', exec: 'x', shell: 'y' }, 'shell', 'Tool must specify exactly one of: exec, shell, or command', 'exec and shell'],
    [{ name: 'a' }, '', 'Tool must specify exactly one of: exec, shell, or command', 'none of them'],
    [{ name: 'my tool', exec: 'x' }, 'name', "'name' has the wrong value.", '"my tool"'],
    [{ name: 'x'.repeat(65), exec: 'x' }, 'name', "'name' has the wrong value.", `"${'x'.repeat(65)}"`],
    [{ exec: 'x' }, 'name', "Missing required field 'name'.", 'nothing (the field is missing)'],
    [{ name: 'a', exec: 5 }, 'exec', "'exec' has the wrong type.", 'number 5'],
    [{ name: 'a', exec: '' }, 'exec', "'exec' is empty.", '""'],
    [{ name: 'a', command: [] }, 'command', "'command' is empty.", 'a list of 0'],
    [{ name: 'a', command: 'ls -la' }, 'command', "'command' has the wrong type.", '"ls -la"'],
    [
      { name: 'a', exec: 'x', parameters: [{ name: 'n', default: [10] }] },
      'parameters[0].default',
      "'default' has the wrong value.",
      'a list of 1',
    ],
    [{ name: 'a', exec: 'x', parameters: [{ name: 'n', type: 'float' }] }, 'parameters[0].type', "'type' has the wrong value.", '"float"'],
    [
      { name: 'a', exec: 'x', parameters: [{ name: 'n', inject_as: 'env' }] },
      'parameters[0].inject_as',
      "'inject_as' has the wrong value.",
      '"env"',
    ],
    [{ name: 'a', exec: 'x', parameters: [{ name: 'my-param' }] }, 'parameters[0].name', "'name' has the wrong value.", '"my-param"'],
    [
      { name: 'a', exec: 'x', parameters: [{ name: 'n', position: -1 }] },
      'parameters[0].position',
      "'position' is too small.",
      'number -1',
    ],
    [{ name: 'a', exec: 'x', description: null }, 'description', "'description' has the wrong type.", 'null (an empty value)'],
    ['ls -la', '', 'A tool definition must be a mapping.', '"ls -la"'],
  ])('rejects %j with the field, what was expected, what was found, and a fix', (definition, field, message, found) => {
    const error = failure(definition, { file: 'agent.yaml', path: 'tools[4]' });
    const location = field === '' ? 'tools[4]' : `tools[4].${field}`;
    expect(error.message).toContain(`agent.yaml: ${location}: ${message}`);
    expect(error.message).toMatch(new RegExp(`Expected .+, found ${found.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.`));
    expect(error.field).toBe(location);
    expect(error.hint).toBeTruthy();
  });

  it('works without file or path', () => {
    const error = failure({ name: 'a', exec: 'a | b' });
    expect(error.message.startsWith("exec: Shell metacharacter '|'")).toBe(true);
    expect(formatIssue(error.issues[0]!)).toBe(error.message);
  });

  it('warns about unknown keys by name and still expands', () => {
    const warnings: ToolDefinitionWarning[] = [];
    const result = safeExpandTool(
      { name: 'a', exec: 'ls -- ${d}', timeout: 5, parameters: [{ name: 'd', note: 'mine' }] },
      { path: 'tools[0]', onWarning: (warning) => warnings.push(warning) },
    );
    expect(result.success).toBe(true);
    expect(warnings.map((warning) => warning.field)).toEqual(['tools[0].timeout', 'tools[0].parameters[0].note']);
    expect(warnings[1]?.message).toContain("Unknown parameter key 'note' is ignored. Known keys: name, type, enum, description");
    expect(result.warnings).toEqual(warnings);
  });

  it('refuses a key close to a known one, with the suggestion, so a misspelled setting never fails open', () => {
    const result = safeExpandTool(
      { name: 'a', exec: 'ls ${d}', timout_ms: 5, parameters: [{ name: 'd', descripton: 'typo' }] },
      { path: 'tools[0]', file: 'agent.yaml' },
    );
    expect(result.success).toBe(false);
    const error = (result as { error: ToolDefinitionError }).error;
    expect(error.code).toBe('TOOL_DEFINITION_INVALID');
    expect(error.issues.map((issue) => [issue.field, issue.message])).toEqual([
      ['tools[0].timout_ms', "Unknown tool key 'timout_ms': did you mean 'timeout_ms'?"],
      ['tools[0].parameters[0].descripton', "Unknown parameter key 'descripton': did you mean 'description'?"],
    ]);
    expect(error.hint).toContain('tools[0].timout_ms: Rename timout_ms to timeout_ms');
    expect(result.warnings).toEqual([]);
  });

  it('throws from expandTool and rethrows nothing else', () => {
    expect(() => expandTool({ name: 'a', exec: 'a | b' }, { file: 'agent.yaml' })).toThrow("agent.yaml: exec: Shell metacharacter '|'");
  });
});
