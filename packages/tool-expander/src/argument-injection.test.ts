import { describe, expect, it } from 'vitest';
import { safeExpandTool } from './index.js';

function warningsOf(definition: Record<string, unknown>): string[] {
  const result = safeExpandTool({ name: 't', ...definition }, { file: 'agent.yaml', path: 'tools[0]' });
  if (!result.success) throw result.error;
  return result.warnings.map((warning) => `${warning.field}: ${warning.message}`);
}

describe('argument injection', () => {
  it('warns once per tool, naming each whole-argument placeholder with no -- before it', () => {
    expect(warningsOf({ exec: 'find ${directory} -name ${pattern}' })).toEqual([
      "tools[0].exec: ${directory}, ${pattern} are whole arguments with no -- before them: a value starting with '-' would be read as an option " +
        '(find ${directory} given "-delete" deletes the workspace). Put -- before them (cat -- ${directory}), join it to its option (--name=${directory}), or declare an enum:.',
    ]);
    expect(warningsOf({ shell: 'curl -sS "${url}" | head -n 5' })[0]).toMatch(
      /^tools\[0\]\.shell: \$\{url\} is a whole argument with no -- before it:/,
    );
    expect(warningsOf({ command: ['cat'], parameters: [{ name: 'file' }] })[0]).toMatch(
      /^tools\[0\]\.command: \$\{file\} is a whole argument/,
    );
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
    expect(warningsOf({ shell: 'grep -- ${a} f; rm ${b}' })[0]).toMatch(/^tools\[0\]\.shell: \$\{b\} is a whole argument/);
  });
});
