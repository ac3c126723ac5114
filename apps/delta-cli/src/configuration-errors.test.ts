import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, startFakeLlm, type FakeLlm, seededRandom } from '@delta/testkit';
import { runDelta } from './test-support.js';

afterAll(cleanupTempDirs);

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ script: () => ({ content: 'ok' }), apiKey: 'sk-test' });
});
afterAll(() => llm.close());

const VALID: Record<string, string> = {
  'agent.yaml':
    'name: cli-fuzz\nllm:\n  model: m\n  temperature: 0.5\nimports:\n  - ./tools.yaml\ntools:\n  - name: greet\n    exec: "printf -- %s ${name}"\n',
  'tools.yaml': 'tools:\n  - name: read_file\n    exec: "cat -- ${path}"\n',
  'context.yaml':
    "sources:\n  - type: file\n    id: system_prompt\n    path: '${AGENT_HOME}/system_prompt.md'\n  - type: journal\n    id: conversation_history\n",
  'hooks.yaml': 'on_run_end:\n  command: [echo, done]\n',
};
const JUNK = [
  '  bad: [',
  '\t- x',
  'tools: 5',
  'llm: null',
  '::',
  '\u0000\u00ff\u00fe',
  'name: [1, 2]',
  'unknown_key: 1',
  'sources: {}',
  'on_run_end: 3',
];

function mutate(text: string, random: () => number): string {
  const lines = text.split('\n');
  const at = Math.floor(random() * lines.length);
  const kind = Math.floor(random() * 3);
  if (kind === 0) lines.splice(at, 1);
  else if (kind === 1) lines.splice(at, 0, JUNK[Math.floor(random() * JUNK.length)]!);
  else lines[at] = ` ${lines[at]}`;
  return lines.join('\n');
}

describe('configuration errors through the real CLI', () => {
  it('30 seeded mutations each end in a clean run (exit 0) or one error with exit 2 and no stack trace', async () => {
    const random = seededRandom(20251122);
    const exits: number[] = [];
    for (let index = 0; index < 30; index += 1) {
      const files = { ...VALID };
      const target = Object.keys(files)[Math.floor(random() * 4)]!;
      files[target] = mutate(files[target]!, random);
      if (random() < 0.5) files[target] = mutate(files[target]!, random);
      const { 'agent.yaml': agentYaml, 'context.yaml': contextYaml, 'hooks.yaml': hooksYaml, ...rest } = files;
      const home = await createTempAgent({ agentYaml: agentYaml!, contextYaml: contextYaml!, hooksYaml: hooksYaml!, files: rest });
      const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi'], {
        env: { DELTA_API_KEY: 'sk-test', DELTA_BASE_URL: llm.baseUrl },
      });
      const label = `case ${index} (${target}):\n${files[target]}\n--- stderr:\n${result.stderr}`;
      expect([0, 2], label).toContain(result.exitCode);
      expect(result.stderr, label).not.toMatch(/^ {4}at /m);
      if (result.exitCode === 2) expect(result.stderr, label).toMatch(/^Error: /m);
      exits.push(result.exitCode!);
    }
    expect(exits).toContain(0);
    expect(exits).toContain(2);
  });

  it('prints one located message with a fix, the stack only with -v', async () => {
    const home = await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  max_tokens: lots\n' });
    const plain = await runDelta(['run', '--agent', home, '-y', '-m', 'hi']);
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toBe(
      `Error: ${join(home, 'agent.yaml')} is not valid:\n` +
        `  - ${join(home, 'agent.yaml')}:4:15 llm.max_tokens: expected number, received string; found the string "lots"\n` +
        'Hint: llm needs at least `model: <model name>`, e.g.\nllm:\n  model: gpt-4o\n  temperature: 0.7  # 0 to 2\n',
    );
    const verbose = await runDelta(['run', '--agent', home, '-y', '-m', 'hi', '-v']);
    expect(verbose.exitCode).toBe(2);
    expect(verbose.stderr).toContain('\nError code: CONFIG_INVALID\n');
    expect(verbose.stderr).toMatch(/^ {4}at /m);
  });

  it('reports every error of an agent at once: agent.yaml keys, each bad tool, hooks.yaml and context.yaml, each located with its fix', async () => {
    const home = await createTempAgent({
      agentYaml:
        'name: a\nllm:\n  model: 123\nmax_iterations: -1\ntools:\n  - name: a\n    description: x\n  - name: b\n    exec: "echo hi"\n    timeout_ms: abc\n',
      hooksYaml: 'pre_tool_execution:\n  commnd: [x]\n',
      contextYaml: "sources:\n  - type: filez\n    path: '${AGENT_HOME}/system_prompt.md'\n",
    });
    const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi']);
    expect(result.exitCode).toBe(2);
    const file = (name: string) => join(home, name);
    expect(result.stderr).toMatch(new RegExp(`^Error: The agent ${home} has 5 configuration errors:\n`));
    const expected = [
      `  1. ${file('agent.yaml')} is not valid:`,
      `       - ${file('agent.yaml')}:3:10 llm.model: expected string`,
      `       - ${file('agent.yaml')}:4:17 max_iterations: Too small`,
      `  2. ${file('agent.yaml')}:6:5 tools[0]: Tool must specify exactly one of: exec, shell, or command.`,
      '     Fix: Add exec: "program ${arg}"',
      `  3. ${file('agent.yaml')}:10:17 tools[1].timeout_ms: 'timeout_ms' has the wrong type.`,
      `  4. ${file('hooks.yaml')} is not valid:`,
      '     Fix: Rename pre_tool_execution.commnd to pre_tool_execution.command.',
      `  5. ${file('context.yaml')} is not valid:`,
      `       - ${file('context.yaml')}:2:11 sources[0].type: Invalid discriminator value.`,
    ];
    let from = 0;
    for (const line of expected) {
      const at = result.stderr.indexOf(`\n${line}`, from);
      expect(at, `${line}\n--- in stderr:\n${result.stderr}`).toBeGreaterThan(from - 1);
      from = at + 1;
    }
    expect(result.stderr).toMatch(/\nHint: Fix each one as its line says; every error found is listed/);
    expect(result.stderr).not.toMatch(/^ {4}at /m);
  });

  it('warns about unknown keys by name and runs; -v says which file supplied the key and the base URL, never the key', async () => {
    const home = await createTempAgent({
      agentYaml: 'name: a\nllm: {model: m}\ntemperature: 0.3\n',
      files: { '.env': `DELTA_API_KEY=sk-test\nDELTA_BASE_URL=${llm.baseUrl}\n` },
    });
    const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi', '-v']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`warning: ${join(home, 'agent.yaml')}:3:1 temperature: unknown key "temperature" is ignored`);
    expect(result.stderr).toContain(
      `API key: DELTA_API_KEY from ${join(home, '.env')}; base URL ${llm.baseUrl} from ${join(home, '.env')}`,
    );
    expect(result.stderr).not.toContain('sk-test');
  });

  it('lets the workspace .env override the process environment', async () => {
    const home = await createTempAgent();
    const workspace = join(home, 'workspaces/W001');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, '.env'), `DELTA_API_KEY=sk-test\nDELTA_BASE_URL=${llm.baseUrl}\n`);
    const result = await runDelta(['run', '--agent', home, '-w', workspace, '-m', 'hi', '-v'], {
      env: { DELTA_API_KEY: 'sk-wrong', DELTA_BASE_URL: 'http://127.0.0.1:9/v1' },
    });
    expect(result.stderr).toContain(`API key: DELTA_API_KEY from ${join(workspace, '.env')}`);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe('ok');
    // Spec 003 section 10.2: -v says where the journal is as the run starts, and the file is there.
    const runId = readFileSync(join(workspace, '.delta', 'LATEST'), 'utf8').trim();
    const journal = join(workspace, '.delta', runId, 'journal.jsonl');
    expect(result.stderr).toContain(`Journal log: ${journal}\n`);
    expect(existsSync(journal)).toBe(true);
    const quiet = await runDelta(['continue', '-w', workspace, '-m', 'again'], { env: { DELTA_API_KEY: 'sk-wrong' } });
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).not.toContain('Journal log:');
  });

  // docs/cli.md#exit-codes is the one rule: a run a configuration error ended is FAILED and exits 2.
  it('ends a run whose key the endpoint rejects (401) FAILED with exit 2, as the exit-code table says', async () => {
    const home = await createTempAgent();
    const workspace = join(home, 'workspaces/W001');
    const result = await runDelta(['run', '--agent', home, '-w', workspace, '-m', 'hi'], {
      env: { DELTA_API_KEY: 'sk-wrong', DELTA_BASE_URL: llm.baseUrl },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/401/);
    expect(result.stderr).toMatch(/Hint: .*DELTA_API_KEY/);
    const runId = readFileSync(join(workspace, '.delta', 'LATEST'), 'utf8').trim();
    const metadata = JSON.parse(readFileSync(join(workspace, '.delta', runId, 'metadata.json'), 'utf8'));
    expect(metadata).toMatchObject({ status: 'FAILED', exit_code: 2 });
  });

  it('refuses a misspelled gate with exit 2, naming the key and the suggestion, and runs nothing', async () => {
    const home = await createTempAgent({ hooksYaml: 'pre_tool_exection:\n  command: ["${AGENT_HOME}/gate.sh"]\n' });
    const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi'], {
      env: { DELTA_API_KEY: 'sk-test', DELTA_BASE_URL: llm.baseUrl },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `Error: ${join(home, 'hooks.yaml')} is not valid:\n` +
        `  - ${join(home, 'hooks.yaml')}:1:1 pre_tool_exection: unknown hook "pre_tool_exection": did you mean "pre_tool_execution"?\n` +
        'Hint: Rename pre_tool_exection to pre_tool_execution. A misspelled hook never runs, so it is refused rather than ignored.\n',
    );
    expect(existsSync(join(home, 'workspaces'))).toBe(false);
  });

  it('refuses a tool key close to a known one with exit 2 and the suggestion', async () => {
    const home = await createTempAgent({
      agentYaml: 'name: a\nllm: {model: m}\ntools:\n  - name: t\n    exec: sleep 9\n    timout_ms: 10\n',
    });
    const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(
      `Error: ${join(home, 'agent.yaml')}:6:5 tools[0].timout_ms: Unknown tool key 'timout_ms': did you mean 'timeout_ms'?`,
    );
    expect(result.stderr).toContain('Hint: Rename timout_ms to timeout_ms');
  });

  it('--strict makes every warning an error on run, continue and tool expand; without it they are warnings', async () => {
    const home = await createTempAgent({
      agentYaml: 'name: a\nllm: {model: m}\nowner: me\ntools:\n  - name: t\n    description: Says hi.\n    exec: echo hi\n',
      files: { '.env': `DELTA_API_KEY=sk-test\nDELTA_BASE_URL=${llm.baseUrl}\n` },
    });
    const warning = `warning: ${join(home, 'agent.yaml')}:3:1 owner: unknown key "owner" is ignored (check its spelling and indentation)\n`;
    const strictError =
      `Error: The agent ${home} has a warning, and strict mode makes every warning an error:\n` +
      `  - ${join(home, 'agent.yaml')}:3:1 owner: unknown key "owner" is ignored (check its spelling and indentation)\n`;

    const strictRun = await runDelta(['run', '--agent', home, '-y', '-m', 'hi', '--strict']);
    expect(strictRun.exitCode).toBe(2);
    expect(strictRun.stderr).toContain(strictError);
    expect(strictRun.stderr).not.toMatch(/^ {4}at /m);
    expect(existsSync(join(home, 'workspaces'))).toBe(false);

    const run = await runDelta(['run', '--agent', home, '-y', '-m', 'hi', '-q']);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe(warning);

    const workspace = join(home, 'workspaces/W001');
    const strictContinue = await runDelta(['continue', '-w', workspace, '-m', 'again', '--strict']);
    expect(strictContinue.exitCode).toBe(2);
    expect(strictContinue.stderr).toContain(strictError);
    const resumed = await runDelta(['continue', '-w', workspace, '-m', 'again', '-q']);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toBe(warning);

    const strictExpand = await runDelta(['tool', 'expand', home, '--strict']);
    expect(strictExpand.exitCode).toBe(2);
    expect(strictExpand.stderr).toContain(strictError);
    expect(strictExpand.stdout).toBe('');
    const expand = await runDelta(['tool', 'expand', home]);
    expect(expand.exitCode).toBe(0);
    expect(expand.stderr).toBe(warning);
  });

  it('`temprature: 0` exits 2, naming llm.temprature and suggesting temperature', async () => {
    const home = await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  temprature: 0\n' });
    const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi'], {
      env: { DELTA_API_KEY: 'sk-test', DELTA_BASE_URL: llm.baseUrl },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `Error: ${join(home, 'agent.yaml')} is not valid:\n` +
        `  - ${join(home, 'agent.yaml')}:4:3 llm.temprature: unknown key "temprature": did you mean "temperature"?\n` +
        'Hint: Rename llm.temprature to llm.temperature. A parameter only your server knows goes under llm.extra_body, which is merged into the request as written.\n',
    );
  });

  it('runs against a base URL without a key, sending none, and -v says so', async () => {
    const server = await startFakeLlm({ script: () => ({ content: 'no key needed' }) });
    try {
      const home = await createTempAgent({ files: { '.env': `DELTA_BASE_URL=${server.baseUrl}\n` } });
      const result = await runDelta(['run', '--agent', home, '-y', '-m', 'hi', '-v']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toBe('no key needed\n');
      expect(result.stderr).toContain(
        `API key: none (neither DELTA_API_KEY nor OPENAI_API_KEY is set, so no key is sent); base URL ${server.baseUrl} from ${join(home, '.env')}`,
      );
      expect(server.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});
