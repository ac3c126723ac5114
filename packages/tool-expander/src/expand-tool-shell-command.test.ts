import { describe, expect, it } from 'vitest';
import { runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool } from './index.js';
import { failure } from './expand-tool.test-support.js';

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
