// The argument-injection lint as a user meets it: the spec's canonical tools run quietly, even under
// --strict; a tool whose program acts on options is warned about once per agent load, and can say it is safe.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { runDelta } from './test-support.js';

afterEach(cleanupTestResources);

/** Spec 000/001's own example tools, as its compliance agents write them, and spec 000 2.3.4's session tools. */
const SPEC_TOOLS = `name: spec-tools
llm: {model: m}
tools:
  - name: local_tool
    exec: "echo \${message}"
  - name: read_file
    exec: "cat \${file}"
  - name: count_matches
    shell: "grep \${pattern} \${file} | wc -l"
  - name: run_script
    exec: "bash -c \${script}"
  - name: session_start
    exec: "delta-sessions start"
  - name: session_exec
    exec: "delta-sessions exec \${session_id}"
    stdin: command
  - name: session_end
    exec: "delta-sessions end \${session_id}"
`;

const RISKY_TOOLS = `name: risky
llm: {model: m}
imports: [./more-tools.yaml]
tools:
  - name: find_files
    description: Find files under a directory
    exec: "find \${directory} -name '*.txt'"
  - name: remove
    description: Remove a file
    exec: "rm \${file}"
  - name: echo_it
    description: Echo a message
    exec: "echo \${message}"
`;
const MORE_TOOLS = `tools:
  - name: fetch
    description: Fetch a URL
    exec: "curl -sS \${url}"
  - name: log
    description: Show the log of a revision
    exec: "git log \${revision}"
    allow_option_values: true
`;

describe('the argument-injection warning', () => {
  it('stays quiet for the spec canonical tools: a run prints no warning, and --strict runs them', async () => {
    const server = await startFakeLlm({
      script: [{ content: 'Echoing.', tool_calls: [{ name: 'local_tool', arguments: { message: '-n' } }] }, { content: 'Done.' }],
    });
    const agent = await createTempAgent({ agentYaml: SPEC_TOOLS });
    const work = join(await createTempDir('spec-tools-'), 'ws');
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Echo -n', '--strict', '-q'], {
      env: modelEnv(server),
    });
    expect(run.stderr).not.toContain('warning');
    expect(run.stdout).toBe('Done.\n');
    expect(run.exitCode).toBe(0);
  });

  it('warns once for all the risky tools of an agent, across its files, naming each; --strict refuses with exit 2', async () => {
    const agent = await createTempAgent({ agentYaml: RISKY_TOOLS, files: { 'more-tools.yaml': MORE_TOOLS } });
    const expand = await runDelta(['tool', 'expand', agent]);
    expect(expand.exitCode).toBe(0);
    const warnings = expand.stderr.split('\n').filter((line) => line.startsWith('warning:'));
    expect(warnings).toEqual([
      `warning: ${join(agent, 'more-tools.yaml')}:4:11 tools[0].exec: 3 tools pass a parameter as a whole argument, with no -- before it, ` +
        `to a program that may act on it as an option: fetch (\${url} to curl) at ${join(agent, 'more-tools.yaml')}:4 tools[0].exec; ` +
        `find_files (\${directory} to find) at ${join(agent, 'agent.yaml')}:7 tools[0].exec; remove (\${file} to rm) at ${join(agent, 'agent.yaml')}:10 tools[1].exec. ` +
        `A value starting with '-' would be read as an option (find \${directory} given "-delete" deletes the workspace). ` +
        'For each: put -- before it (find -- ${directory}), join it to its option (--name=${directory}), declare an enum:, ' +
        'or, if no option of that program can do harm there, say so with allow_option_values: true (docs/tools.md, "Values that look like options").',
    ]);
    expect(expand.stdout).toContain('    allow_option_values: true\n');

    const strict = await runDelta(['tool', 'expand', agent, '--strict']);
    expect(strict.exitCode).toBe(2);
    expect(strict.stderr).toContain('strict mode makes every warning an error');
    expect(strict.stderr).toContain('3 tools pass a parameter as a whole argument');
    expect(strict.stdout).toBe('');
  });

  it('says it once in a whole run, whatever the tools are called', async () => {
    const echo = (message: string) => ({ content: 'Echoing.', tool_calls: [{ name: 'echo_it', arguments: { message } }] });
    const server = await startFakeLlm({ script: [echo('-n'), echo('one'), echo('two'), { content: 'Done.' }] });
    const agent = await createTempAgent({ agentYaml: RISKY_TOOLS, files: { 'more-tools.yaml': MORE_TOOLS } });
    const work = join(await createTempDir('risky-'), 'ws');
    const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Find', '-y', '-q'], {
      env: modelEnv(server),
    });
    expect(run.stdout).toBe('Done.\n');
    expect(run.exitCode).toBe(0);
    expect(run.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toHaveLength(1);
  });
});
