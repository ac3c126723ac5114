// `delta tool expand` prints a configuration you can paste back (spec 001 sections 4.1 and 6.1): as
// agent.yaml it expands to the same tools, and a run of it does what a run of the original does.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { readLatestRunId, runPaths } from '@delta/journal';
import { runDelta } from './test-support.js';

afterEach(cleanupTestResources);

const ORIGINAL = `name: original
llm: {model: m}
tools:
  - name: run_script
    exec: "bash -c \${script}"
  - name: label
    description: Write a labelled line
    exec: "printf '%s: %s\\\\n' --name=\${name} \${text}"
    stdin: ignored
  - name: count
    shell: "printf %s \${text} | wc -c > \${CWD}/count.txt"
  - name: save
    command: [tee, --]
    stdin: content
    parameters:
      - name: file
`;

const CALLS = [
  { name: 'run_script', arguments: { script: 'printf "%s" "from bash" > script.txt' } },
  { name: 'label', arguments: { name: 'a b', text: '-n ${x}', ignored: '' } },
  { name: 'count', arguments: { text: 'four' } },
  { name: 'save', arguments: { file: 'saved.txt', content: 'kept\n' } },
];

/** Runs the agent once with the model calling every tool, and returns what the tools left and ran. */
async function runAll(agent: string): Promise<{ files: Record<string, string>; commands: string[]; outputs: string[] }> {
  const server = await startFakeLlm({ script: [{ content: 'All tools.', tool_calls: CALLS }, { content: 'Done.' }] });
  const work = join(await createTempDir('round-trip-'), 'ws');
  const run = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Use every tool', '-q'], {
    env: modelEnv(server),
  });
  await server.close();
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  const files = Object.fromEntries(['script.txt', 'count.txt', 'saved.txt'].map((file) => [file, readFileSync(join(work, file), 'utf8')]));
  const executions = join(runPaths(work, readLatestRunId(work)!).runDir, 'io', 'tool_executions');
  const calls = readdirSync(executions).sort();
  return {
    files,
    commands: calls.map((call) => readFileSync(join(executions, call, 'command.txt'), 'utf8').replaceAll(work, '<workspace>')),
    outputs: calls.map((call) => readFileSync(join(executions, call, 'stdout.log'), 'utf8')),
  };
}

describe('delta tool expand, pasted back', () => {
  it('expands to the same tools and runs the same: bash -c ${script} appends the script, as spec 001 section 4.1 says', async () => {
    const original = await createTempAgent({ agentYaml: ORIGINAL });
    const expanded = await runDelta(['tool', 'expand', original, '--strict']);
    expect(expanded.stderr).toBe('');
    expect(expanded.exitCode).toBe(0);
    expect(expanded.stdout).toContain('  - name: run_script\n    command:\n      - bash\n      - -c\n    timeout_ms: 120000\n');

    const pasted = await createTempAgent({ agentYaml: `name: original\nllm: {model: m}\n${expanded.stdout}` });
    const again = await runDelta(['tool', 'expand', pasted, '--strict']);
    expect(again.stderr).toBe('');
    expect(again.stdout).toBe(expanded.stdout);
    const schema = await runDelta(['tool', 'expand', original, '--schema']);
    expect((await runDelta(['tool', 'expand', pasted, '--schema'])).stdout).toBe(schema.stdout);

    const before = await runAll(original);
    expect(before.files).toEqual({ 'script.txt': 'from bash', 'count.txt': '4\n', 'saved.txt': 'kept\n' });
    expect(before.outputs[1]).toBe('--name=a b: -n ${x}\n');
    expect(await runAll(pasted)).toEqual(before);
  });
});
