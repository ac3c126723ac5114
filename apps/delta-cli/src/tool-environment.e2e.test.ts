// Tools get an allow-list of the user's environment (issue 42): a tool, a stdio MCP server, a hook and a
// computed_file generator each write `env` into the workspace during a real `delta run`, started by the
// `delta` script as users start it, with tokens, the queue's address and a copy of the key in the user's
// environment. Sandboxed, as root and as the unprivileged user nobody.
import { chmodSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { identities, type Identity } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

afterEach(cleanupTestResources);

const KEY = 'sk-delta-env-test-0123456789abcdef';
const DELTA_SCRIPT = join(dirname(DELTA_BIN), 'delta');
const HANG_SERVER = join(import.meta.dirname, '../../../packages/mcp/test/hang-server.mjs');
const SERVER_TOKEN = 'mcp-server-token-0123456789';
/** What a user's shell holds besides the key: none of it is a tool's business unless passed on. */
const USER_ENVIRONMENT = {
  GITHUB_TOKEN: 'ghp_test_github_token_000111',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-access-key-000222',
  DELTA_QUEUE: 'redis://:pw@127.0.0.1:1/0',
  MY_COPY: KEY,
  // The MCP server's credential (its own env: below), also in a variable of the user's.
  SERVER_TOKEN_COPY: SERVER_TOKEN,
  PYTHONPATH: '/opt/python',
  PYTHON_EXTRA: 'extra',
  UID: '77',
};

const probe = probeBubblewrap();
const noBubblewrap = !probe.ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the tool environment tests: ${noBubblewrap}.\n!!!!!!!!\n`);

type Environment = Map<string, string>;

function parseEnv(text: string): Environment {
  const found = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (match) found.set(match[1]!, match[2]!);
  }
  return found;
}

interface Seen {
  tool: Environment;
  mcp: Environment;
  hook: Environment;
  generator: Environment;
  texts: Record<string, string>;
  stderr: string;
  start: Record<string, unknown>;
  agent: string;
}

/** One run in which every kind of process of a run writes its environment into the workspace. */
async function runDumping(sandboxEnv: Record<string, unknown> | undefined, identity?: Identity): Promise<Seen> {
  const work = await createTempDir('env-work-');
  const home = await createTempDir('env-home-');
  const agent = await createTempAgent({
    agentYaml: {
      name: 'env-dump',
      llm: { model: 'm', max_retries: 0 },
      sandbox: { mode: 'workspace-write', ...(sandboxEnv ? { env: sandboxEnv } : {}) },
      tools: [{ name: 'dump', description: 'Writes its environment', shell: 'env > tool-env.txt' }],
      mcp_servers: [{ name: 'box', command: process.execPath, args: [HANG_SERVER], env: { SERVER_TOKEN } }],
    },
    hooksYaml: { on_run_end: { command: ['sh', '-c', 'env > "$DELTA_CWD/hook-env.txt"'] } },
    contextYaml: {
      sources: [
        { type: 'file', id: 'system_prompt', path: '${AGENT_HOME}/system_prompt.md' },
        {
          type: 'computed_file',
          id: 'generated',
          generator: { command: ['sh', '-c', 'env > "$DELTA_CWD/generator-env.txt"; echo generated > "$DELTA_CWD/generated.md"'] },
          output_path: '${CWD}/generated.md',
        },
        { type: 'journal', id: 'conversation_history' },
      ],
    },
    files: { 'dump.sh': 'env > "$1"\n' },
  });
  for (const dir of [work, home]) chmodSync(dir, 0o777);
  chmodSync(agent, 0o755);
  const server = await startFakeLlm({
    apiKey: KEY,
    script: [
      {
        tool_calls: [
          { name: 'dump', arguments: {} },
          { name: 'mcp__box__sh', arguments: { script: join(agent, 'dump.sh'), args: [join(work, 'mcp-env.txt')] } },
        ],
      },
      { content: 'done' },
    ],
  });
  const [file, ...args] = [...(identity?.prefix ?? []), DELTA_SCRIPT, 'run', '--agent', agent, '-m', 'go', '-w', work, '-y'];
  const result = await runProcess(file!, args, {
    env: { ...process.env, ...USER_ENVIRONMENT, HOME: home, DELTA_API_KEY: KEY, DELTA_BASE_URL: server.baseUrl },
  });
  expect(result.exitCode, result.stderr).toBe(0);
  const texts = Object.fromEntries(
    ['tool', 'mcp', 'hook', 'generator'].map((name) => [name, readFileSync(join(work, `${name}-env.txt`), 'utf8')]),
  );
  const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
  const start = readJournal(join(work, '.delta', runId, 'journal.jsonl')).find((event) => event.type === 'ENGINE_START')!;
  return {
    tool: parseEnv(texts.tool!),
    mcp: parseEnv(texts.mcp!),
    hook: parseEnv(texts.hook!),
    generator: parseEnv(texts.generator!),
    texts,
    stderr: result.stderr,
    start: start as Record<string, unknown>,
    agent,
  };
}

/** Nothing secret anywhere in what a process saw: by name, and the key's and the queue password's values in any variable. */
function expectNoSecret(text: string, label: string): void {
  expect.soft(text, label).not.toContain(KEY);
  expect.soft(text, label).not.toContain('pw@127.0.0.1');
  expect.soft(text, label).not.toMatch(/^(DELTA_API_KEY|DELTA_BASE_URL|DELTA_QUEUE|MY_COPY|SERVER_TOKEN_COPY)=/m);
}

describe.skipIf(noBubblewrap !== undefined)('the environment of tools, MCP servers, hooks and generators (real delta, sandboxed)', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: by default tools and MCP servers get the core and the run's variables; hooks and generators everything but the secrets`,
      async () => {
        const seen = await runDumping(undefined, identity);
        for (const label of ['tool', 'mcp'] as const) {
          const environment = seen[label];
          for (const name of ['GITHUB_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'PYTHONPATH', 'UID']) {
            expect.soft(environment.get(name), `${label} ${name}`).toBeUndefined();
          }
          expect.soft(environment.get('PATH'), label).toBeDefined();
          expect.soft(environment.get('DELTA_SANDBOX'), label).toBe('workspace-write');
          expect.soft(environment.get('DELTA_AGENT_HOME'), label).toBe(seen.agent);
          expectNoSecret(seen.texts[label]!, label);
        }
        expect(seen.tool.get('HOME')).toBeDefined();
        expect(seen.tool.get('DELTA_RUN_ID')).toBeDefined();
        // The server's own env: still reaches it, and only it.
        expect(seen.mcp.get('SERVER_TOKEN')).toBe(SERVER_TOKEN);
        expect(seen.texts.tool).not.toContain(SERVER_TOKEN);
        // The user's own code keeps the user's environment, less the secrets.
        for (const label of ['hook', 'generator'] as const) {
          expect.soft(seen[label].get('GITHUB_TOKEN'), label).toBe(USER_ENVIRONMENT.GITHUB_TOKEN);
          expect.soft(seen[label].get('AWS_SECRET_ACCESS_KEY'), label).toBe(USER_ENVIRONMENT.AWS_SECRET_ACCESS_KEY);
          expect.soft(seen[label].get('DELTA_RUN_ID'), label).toBe(seen.tool.get('DELTA_RUN_ID'));
          expectNoSecret(seen.texts[label]!, label);
          expect.soft(seen.texts[label], label).not.toContain(SERVER_TOKEN);
        }
        // What ENGINE_START records: the policy and names, never a value.
        expect(seen.start.environment).toMatchObject({ inherit: 'core', names: expect.arrayContaining(['PATH', 'DELTA_RUN_ID']) });
        expect(JSON.stringify(seen.start.environment)).not.toContain('GITHUB_TOKEN');
      },
    );
  }

  it('pass: gives a name or pattern on, set: pins a value (${AGENT_HOME} filled in); a secret still never goes', async () => {
    const seen = await runDumping({ pass: ['GITHUB_TOKEN', 'PYTHON*', 'SERVER_TOKEN_COPY'], set: { PYTHONPATH: '${AGENT_HOME}/lib' } });
    for (const label of ['tool', 'mcp'] as const) {
      expect.soft(seen[label].get('GITHUB_TOKEN'), label).toBe(USER_ENVIRONMENT.GITHUB_TOKEN);
      expect.soft(seen[label].get('PYTHON_EXTRA'), label).toBe('extra');
      expect.soft(seen[label].get('PYTHONPATH'), label).toBe(`${seen.agent}/lib`);
      expect.soft(seen[label].get('AWS_SECRET_ACCESS_KEY'), label).toBeUndefined();
      expectNoSecret(seen.texts[label]!, label);
    }
    // Named, but its value is the MCP server's credential: kept back, and said why.
    expect(seen.stderr).toMatch(/sandbox\.env\.pass names SERVER_TOKEN_COPY, which is not given to tools: its value holds a secret/);
    expect(seen.start.environment).toMatchObject({ inherit: 'core', withheld: ['SERVER_TOKEN_COPY'] });
  });

  it('inherit: all passes the old environment with a warning, but never DELTA_QUEUE, a key or a copy of one, nor what bash cannot export', async () => {
    const seen = await runDumping({ inherit: 'all' });
    for (const label of ['tool', 'mcp'] as const) {
      expect.soft(seen[label].get('GITHUB_TOKEN'), label).toBe(USER_ENVIRONMENT.GITHUB_TOKEN);
      expect.soft(seen[label].get('AWS_SECRET_ACCESS_KEY'), label).toBe(USER_ENVIRONMENT.AWS_SECRET_ACCESS_KEY);
      expect.soft(seen[label].get('PYTHONPATH'), label).toBe('/opt/python');
      expectNoSecret(seen.texts[label]!, label);
    }
    expect(seen.texts.tool).not.toMatch(/^UID=77$/m);
    expect(seen.stderr).toContain('warning: sandbox.env.inherit: all gives tools your whole environment');
    expect(seen.stderr).toMatch(/warning: not given to tools, as the sandbox's shell cannot export them as they are: UID/);
    // delta tool expand says it too, before any run.
    const expand = await runProcess(process.execPath, [DELTA_BIN, 'tool', 'expand', seen.agent], {
      env: { ...process.env, ...USER_ENVIRONMENT },
    });
    expect(expand.exitCode, expand.stderr).toBe(0);
    expect(expand.stderr).toContain('warning: sandbox.env.inherit: all gives tools your whole environment');
    expect(seen.start.environment).toMatchObject({
      inherit: 'all',
      withheld: expect.arrayContaining(['DELTA_QUEUE', 'MY_COPY', 'SERVER_TOKEN_COPY']),
    });
  });
});
