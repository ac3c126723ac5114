import { describe, expect, it } from 'vitest';
import { safeExpandTool } from './index.js';

function warningsOf(definition: Record<string, unknown>): string[] {
  const result = safeExpandTool({ name: 't', ...definition }, { file: 'agent.yaml', path: 'tools[0]' });
  if (!result.success) throw result.error;
  return result.warnings.map((warning) => `${warning.field}: ${warning.message}`);
}

describe('argument injection', () => {
  it('warns once per tool, naming each whole-argument placeholder with no -- before it and the program that reads it', () => {
    expect(warningsOf({ exec: 'find ${directory} -name ${pattern}' })).toEqual([
      "tools[0].exec: ${directory}, ${pattern} are whole arguments of find with no -- before them: a value starting with '-' would be read as an option " +
        '(find ${directory} given "-delete" deletes the workspace). Put -- before them (find -- ${directory}), join it to its option (--name=${directory}), ' +
        'declare an enum:, or, if no option of find can do harm here, say so with allow_option_values: true.',
    ]);
    expect(warningsOf({ shell: 'curl -sS "${url}" | head -n 5' })[0]).toMatch(
      /^tools\[0\]\.shell: \$\{url\} is a whole argument of curl with no -- before it:/,
    );
    expect(warningsOf({ command: ['/usr/bin/rsync', '-a'], parameters: [{ name: 'source' }] })[0]).toMatch(
      /^tools\[0\]\.command: \$\{source\} is a whole argument of rsync/,
    );
  });

  it.each([
    ['exec', 'rm ${file}'],
    ['exec', 'git log ${revision}'],
    ['exec', 'tar -xf ${archive}'],
    ['exec', 'curl ${url}'],
    ['exec', 'rsync -a ${source} backup/'],
    ['exec', 'sort ${file}'],
    ['exec', 'my-script ${input}'],
    ['exec', 'python3 ${script}'],
    ['shell', 'cat ${file} | xargs rm ${flags}'],
  ])('warns for %s: %j (a program that acts on options, or one it cannot judge)', (mode, template) => {
    expect(warningsOf({ [mode]: template })).toHaveLength(1);
  });

  it.each([
    ['exec', 'echo ${message}'],
    ['exec', 'cat ${file}'],
    ['exec', 'tee ${filename}'],
    ['exec', 'ls -F ${directory}'],
    ['exec', 'grep ${pattern} ${file}'],
    ['exec', 'bash -c ${script}'],
    ['shell', 'grep ${pattern} ${file} | wc -l'],
    ['shell', 'cat ${file} | wc -l'],
    ['command', ['/bin/cat']],
  ])("does not warn for the spec's canonical %s tool %j: no option of the program can do harm", (mode, template) => {
    const definition = mode === 'command' ? { command: template, parameters: [{ name: 'file' }] } : { [mode]: template };
    expect(warningsOf(definition)).toEqual([]);
  });

  it('does not warn for a tool that declares allow_option_values: true, and shows the key when expanded', () => {
    expect(warningsOf({ exec: 'find ${directory} -name x', allow_option_values: true })).toEqual([]);
    expect(warningsOf({ command: ['rm'], parameters: [{ name: 'file' }], allow_option_values: true })).toEqual([]);
    const result = safeExpandTool({ name: 't', shell: 'git log ${revision}', allow_option_values: true });
    expect(result.success && result.tool.allow_option_values).toBe(true);
    expect(warningsOf({ exec: 'find ${directory}', allow_option_values: false })).toHaveLength(1);
  });

  it.each([
    ['exec', 'cat -- ${file}'],
    ['exec', 'curl --url=${url} -o out.txt'],
    ['exec', 'echo Hello, ${name}!'],
    ['exec', 'ls ./${directory} ${CWD}'],
    ['shell', 'grep -rn -- ${text} . | wc -l'],
    ['shell', 'wc -l < ${file}; x=${file}; echo "n: ${file}"'],
    ['shell', 'cat -- ${file} > ${file}.bak'],
    ['shell', 'docker run ${options:raw} -- ${image}'],
  ])('does not warn for %s: %j', (mode, template) => {
    expect(warningsOf({ [mode]: template })).toEqual([]);
  });

  it('does not warn for a boolean, a number, or an enum whose values cannot start with -', () => {
    expect(
      warningsOf({
        exec: 'curl -X ${method} --compressed ${verbose} -- ${url}',
        parameters: [
          { name: 'method', enum: ['GET', 'POST'] },
          { name: 'verbose', type: 'boolean' },
        ],
      }),
    ).toEqual([]);
    expect(warningsOf({ exec: 'sort ${flag} -- ${file}', parameters: [{ name: 'flag', enum: ['-r', '-n'] }] })[0]).toMatch(
      /^tools\[0\]\.exec: \$\{flag\} is/,
    );
    expect(warningsOf({ command: ['cat', '--'], parameters: [{ name: 'file' }] })).toEqual([]);
    expect(warningsOf({ exec: 'head -n ${count} -- ${file}', parameters: [{ name: 'count', type: 'integer' }] })).toEqual([]);
  });

  it('warns after the first command of a shell script even when an earlier one has --', () => {
    expect(warningsOf({ shell: 'grep -- ${a} f; rm ${b}' })[0]).toMatch(/^tools\[0\]\.shell: \$\{b\} is a whole argument of rm/);
  });
});
