// The v1.7 compliance suite: spec 001 section 10, one test per id. Execution tests run real processes.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInvocation, workspaceWithMarker } from '../test/run-invocation.js';
import { buildInvocation, expandTool, safeExpandTool } from './index.js';
import { ToolDefinitionError } from './tool-definition-error.js';

async function run(definition: unknown, args: Record<string, unknown>, dir: string) {
  const tool = expandTool(definition);
  return runInvocation(buildInvocation(tool, args, { AGENT_HOME: dir, CWD: dir }), dir);
}

function definitionError(definition: unknown): ToolDefinitionError {
  const result = safeExpandTool(definition);
  if (result.success) throw new Error('expected a definition error');
  return result.error;
}

describe('Test Suite 1: command injection prevention (exec: mode)', () => {
  it('1.1 rejects shell metacharacters (pipe)', () => {
    const error = definitionError({ name: 'test_exec_reject_pipe', exec: 'cat ${file} | wc -l' });
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error.message).toContain("Shell metacharacter '|' not allowed in exec: mode.");
    expect(error.hint).toContain('Use shell: mode instead');
    expect(error.hint).toContain('remove the pipe');
  });

  it('1.2 rejects redirection', () => {
    const error = definitionError({ name: 'test_exec_reject_redirect', exec: 'echo ${msg} > ${file}' });
    expect(error.message).toContain("Shell metacharacter '>' not allowed in exec: mode.");
  });

  it('1.3 accepts safe commands and passes a malicious value literally', async () => {
    const { dir, marker } = workspaceWithMarker();
    const message = `; rm -rf ${marker}`;
    const outcome = await run({ name: 'test_exec_safe', exec: 'echo ${message}' }, { message }, dir);
    expect(outcome.stdout).toBe(`${message}\n`);
    expect(existsSync(marker)).toBe(true);
  });
});

describe('Test Suite 2: command injection prevention (shell: mode)', () => {
  it('2.1 prevents semicolon injection', async () => {
    const { dir, marker } = workspaceWithMarker();
    const input = `; rm -rf ${marker}; echo done`;
    const outcome = await run({ name: 'test_shell_semicolon', shell: 'echo ${input}' }, { input }, dir);
    expect(outcome.stdout).toBe(`${input}\n`);
    expect(outcome.exitCode).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });

  it('2.2 handles nested quotes as literal characters', async () => {
    const { dir } = workspaceWithMarker();
    const tool = { name: 'test_shell_quotes', shell: 'grep ${pattern} ${file}' };
    writeFileSync(join(dir, 'sample.txt'), 'a line with "test" in quotes\n');
    writeFileSync(join(dir, 'other.txt'), 'a line with test but no quotes\n');
    expect((await run(tool, { pattern: '"test"', file: 'sample.txt' }, dir)).exitCode).toBe(0);
    expect((await run(tool, { pattern: '"test"', file: 'other.txt' }, dir)).exitCode).toBe(1);
  });

  it('2.3 prevents command substitution', async () => {
    const { dir } = workspaceWithMarker();
    const outcome = await run({ name: 'test_shell_command_sub', shell: 'echo ${input}' }, { input: '$(whoami)' }, dir);
    expect(outcome.stdout).toBe('$(whoami)\n');
  });

  it('2.4 passes a pipe character in a parameter literally', async () => {
    const { dir } = workspaceWithMarker();
    const outcome = await run({ name: 'test_shell_pipe_in_param', shell: 'echo ${input}' }, { input: 'test | grep x' }, dir);
    expect(outcome.stdout).toBe('test | grep x\n');
    expect(outcome.exitCode).toBe(0);
  });
});

describe('Test Suite 3: :raw modifier behaviour', () => {
  it('3.1 :raw allows unquoted expansion', async () => {
    const { dir } = workspaceWithMarker();
    const tool = { name: 'test_raw_flags', shell: 'echo ${flags:raw}' };
    const flags = await run(tool, { flags: '-n -e' }, dir);
    expect(flags.stdout.endsWith('\n')).toBe(false); // -n reached echo as a separate flag
    const escapes = await run(tool, { flags: '-e \\nhello' }, dir);
    expect(escapes.stdout).toMatch(/\nhello\n$/); // the escape sequence was interpreted
  });

  it('3.2 rejects :raw in exec: mode', () => {
    const error = definitionError({ name: 'test_raw_reject_in_exec', exec: 'echo ${flags:raw}' });
    expect(error.message).toContain(':raw modifier is only allowed in shell: mode');
    expect(error.field).toBe('exec');
  });

  // Spec 001 says this input deletes the file (see also 5.1, the other expectation of the suite we correct). It cannot: the spec's own expansion (section 4.3) makes
  // ${input:raw} an unquoted $1, and a POSIX shell only splits and globs an expansion, never re-parses
  // it, so ';' stays a word. What :raw does expose is argument injection; this test confirms that.
  it('3.3 :raw with malicious input is interpreted: split and globbed, so arguments can be injected', async () => {
    const { dir, marker } = workspaceWithMarker();
    const semicolon = await run({ name: 'test_raw_vulnerability', shell: 'echo ${input:raw}' }, { input: `; rm -rf ${marker}` }, dir);
    expect(semicolon.stdout).toBe(`; rm -rf ${marker}\n`);
    expect(existsSync(marker)).toBe(true);

    writeFileSync(join(dir, 'secret.txt'), 'the secret\n');
    writeFileSync(join(dir, 'data.txt'), 'public data\n');
    const risky = { name: 'risky_search', shell: 'grep -h ${pattern:raw} ${file}' };
    const injected = await run(risky, { pattern: '. secret.txt', file: 'data.txt' }, dir);
    expect(injected.stdout).toBe('the secret\npublic data\n'); // the model made grep read another file
    const glob = await run({ name: 'list', shell: 'echo ${pattern:raw}' }, { pattern: '*.txt' }, dir);
    expect(glob.stdout).toBe('data.txt secret.txt\n');
  });
});

describe('Test Suite 4: tokenization and whitespace (exec: mode)', () => {
  it('4.1 keeps a quoted static argument whole', async () => {
    const { dir } = workspaceWithMarker();
    writeFileSync(join(dir, 'test.txt'), 'fixed pattern with\nfixed  pattern\npattern fixed\n');
    const tool = expandTool({ name: 'test_exec_quoted_static', exec: 'grep "fixed pattern" ${file}' });
    expect(tool.command).toEqual(['grep', 'fixed pattern', '${file}']);
    const outcome = await runInvocation(buildInvocation(tool, { file: 'test.txt' }, { AGENT_HOME: dir, CWD: dir }), dir);
    expect(outcome.stdout).toBe('fixed pattern with\n');
  });

  it('4.2 passes multiple placeholders as separate arguments', async () => {
    const { dir } = workspaceWithMarker();
    const tool = expandTool({ name: 'test_exec_multi_params', exec: 'echo ${arg1} ${arg2} ${arg3}' });
    const invocation = buildInvocation(tool, { arg1: 'first', arg2: 'second', arg3: 'third' }, { AGENT_HOME: dir, CWD: dir });
    expect(invocation.args).toEqual(['first', 'second', 'third']);
    expect((await runInvocation(invocation, dir)).stdout).toBe('first second third\n');
  });
});

describe('Test Suite 5: stdin handling', () => {
  // Spec 001 expects "3" from this input. It is 2, and rightly: stdin is passed byte for byte, and
  // `wc -l` counts newline characters, of which "line1\nline2\nline3" has two (its last line has none).
  // Adding a newline the model did not send would corrupt every file written through stdin, so the
  // spec's input is kept and its expectation corrected; a newline-terminated input gives 3.
  it("5.1 passes a stdin parameter in exec: mode, exactly: the spec's input gives 2 from wc -l", async () => {
    const { dir } = workspaceWithMarker();
    const tool = { name: 'test_stdin_exec', exec: 'wc -l', stdin: 'content' };
    const spec = await run(tool, { content: 'line1\nline2\nline3' }, dir);
    expect(spec.stdout.trim()).toBe('2');
    const terminated = await run(tool, { content: 'line1\nline2\nline3\n' }, dir);
    expect(terminated.stdout.trim()).toBe('3');
  });

  it('5.2 passes a stdin parameter in shell: mode', async () => {
    const { dir } = workspaceWithMarker();
    const outcome = await run(
      { name: 'test_stdin_shell', shell: 'grep ${pattern}', stdin: 'content' },
      { pattern: 'test', content: 'test1\nfoo\ntest2' },
      dir,
    );
    expect(outcome.stdout).toBe('test1\ntest2\n');
  });
});

describe('Test Suite 6: multi-line scripts (shell: mode)', () => {
  it('6.1 runs a multi-line script with parameters', async () => {
    const { dir } = workspaceWithMarker();
    const outcome = await run(
      { name: 'test_multiline', shell: 'echo "Start"\necho ${value}\necho "End"\n' },
      { value: 'test ; echo injected' },
      dir,
    );
    expect(outcome.stdout).toBe('Start\ntest ; echo injected\nEnd\n');
    expect(outcome.stdout.match(/injected/g)).toHaveLength(1);
  });

  it('6.2 runs pipes across lines', async () => {
    const { dir } = workspaceWithMarker();
    const outcome = await run(
      { name: 'test_multiline_pipes', shell: "echo ${text} |\ntr '[:lower:]' '[:upper:]' |\nwc -c\n" },
      { text: 'hello' },
      dir,
    );
    expect(outcome.stdout.trim()).toBe('6');
  });
});

describe('Test Suite 7: parameter merging and validation', () => {
  it('7.1 merges a valid override (description and default)', async () => {
    const { dir } = workspaceWithMarker();
    const definition = {
      name: 'test_param_merge',
      exec: 'echo ${msg}',
      parameters: [{ name: 'msg', description: 'Message to print', default: 'hello' }],
    };
    expect(expandTool(definition).parameters).toEqual([
      {
        name: 'msg',
        type: 'string',
        description: 'Message to print',
        default: 'hello',
        required: false,
        inject_as: 'argument',
        position: 0,
      },
    ]);
    expect((await run(definition, {}, dir)).stdout).toBe('hello\n');
    expect((await run(definition, { msg: 'given' }, dir)).stdout).toBe('given\n');
  });

  it('7.2 rejects an injection mode conflict', () => {
    const error = definitionError({
      name: 'test_param_conflict',
      shell: 'grep ${pattern} ${file}',
      parameters: [{ name: 'pattern', inject_as: 'stdin' }],
    });
    expect(error.message).toContain("Cannot override inject_as for parameter 'pattern' (inferred: argument, explicit: stdin)");
    expect(error.field).toBe('parameters[0].inject_as');
  });

  it('7.3 rejects an undefined parameter', () => {
    const error = definitionError({
      name: 'test_undefined_param',
      exec: 'echo ${msg}',
      parameters: [{ name: 'undefined_param', description: "This param doesn't exist in template" }],
    });
    expect(error.message).toContain("Parameter 'undefined_param' not found in template");
    expect(error.field).toBe('parameters[0].name');
  });
});
