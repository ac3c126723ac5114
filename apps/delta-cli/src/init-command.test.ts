import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanupTempDirs, createTempDir, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { DEFAULT_CONTEXT_YAML, TEMPLATES } from '@delta/views';
import { runDelta } from './test-support.js';

afterAll(cleanupTempDirs);

let api: Server;
let apiUrl: string;
beforeAll(async () => {
  api = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ path: request.url, ok: true }));
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

/** Per template: a scripted conversation that uses its tools, and what the run must leave behind. */
const conversations: Record<string, { steps: () => ScriptStep[]; check: (workspace: string, toolOutputs: string[]) => void }> = {
  minimal: {
    steps: () => [
      { tool_calls: [{ name: 'echo', arguments: { message: 'hi there' } }] },
      { tool_calls: [{ name: 'write_file', arguments: { filename: 'hello.txt', content: 'Hello from minimal\n' } }] },
      { content: 'Wrote hello.txt.' },
    ],
    check: (workspace, outputs) => {
      expect(outputs[0]).toBe('hi there');
      expect(readFileSync(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello from minimal\n');
    },
  },
  'hello-world': {
    steps: () => [
      {
        tool_calls: [
          { name: 'greet', arguments: { name: 'World' } },
          { name: 'get_date', arguments: {} },
        ],
      },
      { tool_calls: [{ name: 'write_file', arguments: { filename: 'note.md', content: '# note\n' } }] },
      {
        tool_calls: [
          { name: 'list_files', arguments: { directory: '.' } },
          { name: 'read_file', arguments: { filename: 'note.md' } },
        ],
      },
      { content: 'Greeted the world.' },
    ],
    check: (_, outputs) => {
      expect(outputs[0]).toBe('Hello, World!');
      expect(outputs[1]).toMatch(/\d{4}/);
      expect(outputs[3]).toContain('note.md');
      expect(outputs[4]).toBe('# note');
    },
  },
  'file-ops': {
    steps: () => [
      { tool_calls: [{ name: 'make_directory', arguments: { directory: 'docs' } }] },
      { tool_calls: [{ name: 'write_file', arguments: { filename: 'docs/a.txt', content: 'one\n' } }] },
      { tool_calls: [{ name: 'append_file', arguments: { filename: 'docs/a.txt', content: 'two\n' } }] },
      {
        tool_calls: [
          { name: 'count_lines', arguments: { filename: 'docs/a.txt' } },
          { name: 'find_files', arguments: { directory: '.', pattern: '*.txt' } },
        ],
      },
      { tool_calls: [{ name: 'copy_file', arguments: { source: 'docs/a.txt', destination: 'b.txt' } }] },
      {
        tool_calls: [
          { name: 'move_file', arguments: { source: 'b.txt', destination: 'c.txt' } },
          { name: 'delete_file', arguments: { filename: 'docs/a.txt' } },
        ],
      },
      { content: 'Organized.' },
    ],
    check: (workspace, outputs) => {
      expect(outputs[3]!.trim()).toBe('2');
      expect(outputs[4]).toContain('./docs/a.txt');
      expect(readFileSync(join(workspace, 'c.txt'), 'utf8')).toBe('one\ntwo\n');
      expect(existsSync(join(workspace, 'docs/a.txt'))).toBe(false);
    },
  },
  'api-tester': {
    steps: () => [
      {
        tool_calls: [
          { name: 'http_get', arguments: { url: `${apiUrl}/users/1` } },
          { name: 'status_code', arguments: { url: `${apiUrl}/health` } },
        ],
      },
      { tool_calls: [{ name: 'http_post_json', arguments: { url: `${apiUrl}/users`, body: '{"name":"a"}' } }] },
      { tool_calls: [{ name: 'http_request', arguments: { method: 'DELETE', url: `${apiUrl}/users/1` } }] },
      { tool_calls: [{ name: 'write_report', arguments: { filename: 'report.md', content: '# All passed\n' } }] },
      { content: 'All passed.' },
    ],
    check: (workspace, outputs) => {
      expect(outputs[0]).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(outputs[0]).toContain('{"path":"/users/1","ok":true}');
      expect(outputs[1]).toBe('200');
      expect(outputs[2]).toContain('{"path":"/users","ok":true}');
      expect(outputs[3]).toContain('HTTP/1.1 200 OK');
      expect(readFileSync(join(workspace, 'report.md'), 'utf8')).toBe('# All passed\n');
    },
  },
};

describe('delta init', () => {
  it('offers exactly the four templates of the spec', () => {
    expect(TEMPLATES.map((template) => template.name)).toEqual(['minimal', 'hello-world', 'file-ops', 'api-tester']);
    expect(Object.keys(conversations)).toEqual(TEMPLATES.map((template) => template.name));
  });

  for (const template of TEMPLATES) {
    it(`${template.name}: writes the agent, which then runs end to end against the fake model`, async () => {
      const parent = await createTempDir();
      const init = await runDelta(['init', `my-${template.name}`, '-t', template.name], { cwd: parent });
      expect(init.stderr).toBe('');
      expect(init.exitCode).toBe(0);
      const home = join(parent, `my-${template.name}`);
      expect(init.stdout).toContain('[SUCCESS] Agent initialized');
      expect(init.stdout).toContain(`  cd my-${template.name}\n`);
      expect(init.stdout).toContain('delta run -y --agent . -m "Your task description here"');
      expect(parse(readFileSync(join(home, 'agent.yaml'), 'utf8')).name).toBe(`my-${template.name}`);
      expect(readFileSync(join(home, 'context.yaml'), 'utf8')).toBe(DEFAULT_CONTEXT_YAML);
      expect(DEFAULT_CONTEXT_YAML).toMatch(/^# Delta Engine context.yaml \(docs\/context.md/);
      expect(readFileSync(join(home, 'system_prompt.md'), 'utf8')).toBe(template.systemPrompt);

      const conversation = conversations[template.name]!;
      const llm = await startFakeLlm({ script: conversation.steps(), apiKey: 'sk-test' });
      try {
        const run = await runDelta(['run', '--agent', home, '-y', '-m', 'Do your thing'], {
          env: { DELTA_API_KEY: 'sk-test', DELTA_BASE_URL: llm.baseUrl },
        });
        expect(run.stderr).not.toMatch(/Error|warning/);
        expect(run.exitCode).toBe(0);
        expect(run.stdout.trim()).toBe(conversation.steps().at(-1)!.content);
        const last = llm.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }>; tools: unknown[] };
        expect(last.tools.length).toBeGreaterThan(0);
        const toolOutputs = last.messages.filter((message) => message.role === 'tool').map((message) => message.content);
        conversation.check(join(home, 'workspaces/W001'), toolOutputs);
        expect(readFileSync(join(home, 'workspaces/LAST_USED'), 'utf8').trim()).toBe('W001');
      } finally {
        await llm.close();
      }
    });
  }

  /** Runs a template's agent through one scripted conversation; returns the workspace and the tool outputs. */
  async function runTemplate(
    name: string,
    steps: ScriptStep[],
  ): Promise<{ workspace: string; outputs: string[]; exitCode: number | null }> {
    const parent = await createTempDir();
    expect((await runDelta(['init', 'agent', '-t', name], { cwd: parent })).exitCode).toBe(0);
    const home = join(parent, 'agent');
    mkdirSync(join(home, 'workspaces/W001'), { recursive: true });
    writeFileSync(join(home, 'workspaces/W001/keep.txt'), 'mine\n');
    const llm = await startFakeLlm({ script: steps, apiKey: 'sk-test' });
    try {
      const run = await runDelta(['run', '--agent', home, '-w', join(home, 'workspaces/W001'), '-m', 'Go'], {
        env: { DELTA_API_KEY: 'sk-test', DELTA_BASE_URL: llm.baseUrl },
      });
      const last = llm.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> };
      const outputs = last.messages.filter((message) => message.role === 'tool').map((message) => message.content);
      return { workspace: join(home, 'workspaces/W001'), outputs, exitCode: run.exitCode };
    } finally {
      await llm.close();
    }
  }

  it('file-ops: a directory of "-delete" is a path, not a find expression; the workspace and .delta/ stay intact', async () => {
    const { workspace, outputs, exitCode } = await runTemplate('file-ops', [
      { tool_calls: [{ name: 'find_files', arguments: { directory: '-delete', pattern: '*.nothing' } }] },
      { tool_calls: [{ name: 'read_file', arguments: { filename: '-n' } }] },
      { content: 'Looked.' },
    ]);
    expect(exitCode).toBe(0);
    expect(outputs[0]).toContain('./-delete');
    expect(outputs[1]).toContain('-n');
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('mine\n');
    const [runId] = readFileSync(join(workspace, '.delta/LATEST'), 'utf8').trim().split('\n');
    expect(JSON.parse(readFileSync(join(workspace, '.delta', runId!, 'metadata.json'), 'utf8'))).toMatchObject({ status: 'COMPLETED' });
    const journal = readFileSync(join(workspace, '.delta', runId!, 'journal.jsonl'), 'utf8');
    expect(journal).toContain('"ENGINE_END"');
    // Sandboxed, as a user's tools are by default (.ci/run installs bubblewrap; it says so when it cannot).
    if (!process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE) expect(journal).toContain('"sandbox":{"mode":"workspace-write","network":true}');
  });

  it('api-tester: a url of "-K<file>" is a URL, not curl\'s config option that would write into .delta/', async () => {
    const config = `url = "${apiUrl}/x"\noutput = ".delta/pwned"\n`;
    const { workspace, outputs, exitCode } = await runTemplate('api-tester', [
      { tool_calls: [{ name: 'write_report', arguments: { filename: 'cfg', content: config } }] },
      { tool_calls: [{ name: 'http_get', arguments: { url: '-Kcfg' } }] },
      { tool_calls: [{ name: 'http_request', arguments: { method: '--next', url: `${apiUrl}/y` } }] },
      { content: 'Tested.' },
    ]);
    expect(exitCode).toBe(0);
    expect(outputs[1]).toMatch(/curl: \(\d+\)/);
    expect(outputs[2]).toBe(
      'Error: Invalid arguments for tool \'http_request\': Argument \'method\' must be one of "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE" or "OPTIONS", found the string "--next". Known arguments: method (one of "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE" or "OPTIONS"; required), url (required), body (optional).',
    );
    expect(existsSync(join(workspace, '.delta/pwned'))).toBe(false);
    expect(readFileSync(join(workspace, 'keep.txt'), 'utf8')).toBe('mine\n');
  });

  it('uses the minimal template with -y, and when no terminal is attached', async () => {
    const parent = await createTempDir();
    expect((await runDelta(['init', 'a', '-y'], { cwd: parent })).exitCode).toBe(0);
    expect(readFileSync(join(parent, 'a/agent.yaml'), 'utf8')).toContain('name: write_file');
    expect((await runDelta(['init', 'b'], { cwd: parent })).exitCode).toBe(0);
    expect(readFileSync(join(parent, 'b/agent.yaml'), 'utf8')).toBe(
      readFileSync(join(parent, 'a/agent.yaml'), 'utf8').replace('name: a', 'name: b'),
    );
  });

  it('initializes the current directory when it holds only hidden files such as .git', async () => {
    const directory = await createTempDir();
    mkdirSync(join(directory, '.git'));
    writeFileSync(join(directory, '.env'), 'DELTA_API_KEY=x\n');
    const result = await runDelta(['init', '-t', 'hello-world'], { cwd: directory });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('  cd ');
    expect(existsSync(join(directory, 'agent.yaml'))).toBe(true);
  });

  it('refuses a non-empty directory and touches nothing', async () => {
    const directory = await createTempDir();
    writeFileSync(join(directory, 'notes.txt'), 'mine');
    const result = await runDelta(['init', directory, '-y']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      `Error: ${directory} is not empty (it holds notes.txt); delta init will not overwrite anything.\n` +
        'Hint: Choose a new directory, e.g. `delta init my-agent`, or empty this one first (hidden files such as .git are fine).\n',
    );
    expect(existsSync(join(directory, 'agent.yaml'))).toBe(false);
  });

  it('refuses an unknown template, listing the real ones', async () => {
    const parent = await createTempDir();
    const result = await runDelta(['init', 'x', '-t', 'fancy'], { cwd: parent });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('There is no template "fancy".');
    expect(result.stderr).toContain('minimal, hello-world, file-ops, api-tester');
    expect(existsSync(join(parent, 'x'))).toBe(false);
  });
});
