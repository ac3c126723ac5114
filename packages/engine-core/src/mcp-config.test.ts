// mcp_servers: in agent.yaml and imported files, validated with the file, line and field, as tools are.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { loadAgent } from './index.js';

afterEach(() => cleanupTempDirs());

const base = 'name: a\nllm:\n  model: m\n';

async function loadError(
  agentYaml: string,
  files: Record<string, string> = {},
): Promise<{ message: string; field?: string; hint?: string; file?: string }> {
  const home = await createTempAgent({ agentYaml, files });
  try {
    loadAgent(home);
  } catch (error) {
    return error as { message: string; field?: string };
  }
  throw new Error('the agent loaded');
}

describe('mcp_servers in agent.yaml', () => {
  it('loads servers, with those of imports first and the agent replacing one of the same name', async () => {
    const home = await createTempAgent({
      agentYaml: `${base}imports: [shared.yaml]\nmcp_servers:\n  - name: files\n    command: own-files\n`,
      files: {
        'shared.yaml': 'mcp_servers:\n  - name: files\n    command: shared-files\n  - name: web\n    url: http://127.0.0.1:9/mcp\n',
      },
    });
    const agent = loadAgent(home);
    expect(agent.mcpServers.map((entry) => [entry.config.name, entry.config.command ?? entry.config.url, entry.field])).toEqual([
      ['web', 'http://127.0.0.1:9/mcp', 'mcp_servers[1]'],
      ['files', 'own-files', 'mcp_servers[0]'],
    ]);
    expect(agent.mcpServers[1]!.file).toBe(agent.configFile);
  });

  it('names the file, line and field of a server without command or url', async () => {
    const error = await loadError(`${base}mcp_servers:\n  - name: files\n    args: [x]\n`);
    expect(error.message).toMatch(
      /agent\.yaml:5:\d+ mcp_servers\[0\]\.command: a server needs command: \(a stdio server\) or url: \(Streamable HTTP\)/,
    );
    expect(error.field).toBe('mcp_servers[0].command');
    expect(error.hint).toContain('mcp_servers is a list of MCP servers');
  });

  it('refuses a server name that would not make a tool name, an unknown variable, and a mistyped key', async () => {
    expect((await loadError(`${base}mcp_servers:\n  - name: my__files\n    command: x\n`)).message).toMatch(
      /agent\.yaml:5:\d+ mcp_servers\[0\]\.name: .*__ separates server and tool names/,
    );
    expect((await loadError(`${base}mcp_servers:\n  - name: f\n    command: x\n    args: ["\${HOME}"]\n`)).message).toMatch(
      /agent\.yaml:7:\d+ mcp_servers\[0\]\.args\[0\]: \$\{HOME\} is not a variable the engine fills in here \(only \$\{AGENT_HOME\} and \$\{CWD\}\)/,
    );
    // A mistyped key is a warning with its place, as elsewhere in agent.yaml (an error with --strict).
    const home = await createTempAgent({ agentYaml: `${base}mcp_servers:\n  - name: f\n    command: x\n    timeout: 5\n` });
    expect(loadAgent(home).warnings).toMatchObject([{ line: 7, field: 'mcp_servers[0].timeout' }]);
    expect((await loadError(`${base}mcp_servers:\n  - name: f\n    url: http://x/mcp\n    args: [a]\n`)).message).toMatch(
      /mcp_servers\[0\]\.args: args is for stdio servers/,
    );
  });

  it('names the imported file and line of a bad server, and a name used twice in one file', async () => {
    const imported = await loadError(`${base}imports: [shared.yaml]\n`, {
      'shared.yaml': 'mcp_servers:\n  - name: f\n    command: x\n    timeout_ms: -1\n',
    });
    expect(imported.message).toMatch(/shared\.yaml:4:\d+ mcp_servers\[0\]\.timeout_ms/);
    const twice = await loadError(`${base}mcp_servers:\n  - name: f\n    command: x\n  - name: f\n    command: y\n`);
    expect(twice.message).toMatch(/agent\.yaml:7:\d+ mcp_servers\[1\]\.name: "f" is already the name of mcp_servers\[0\] of the same file/);
  });

  it('keeps the mcp__ prefix for MCP tools', async () => {
    const error = await loadError(`${base}tools:\n  - name: mcp__x__y\n    description: d\n    exec: "true"\n`);
    expect(error.message).toMatch(
      /agent\.yaml:5:\d+ tools\[0\]\.name: "mcp__x__y" starts with mcp__, which is kept for the tools of MCP servers/,
    );
  });
});
