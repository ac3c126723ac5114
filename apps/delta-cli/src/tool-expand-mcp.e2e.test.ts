// `delta tool expand` starts an agent's MCP servers to list their tools, as a run would offer them.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { runDelta } from './test-support.js';

const require = createRequire(import.meta.url);
const FILESYSTEM_SERVER = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');
const HANG_SERVER = join(import.meta.dirname, '../../../packages/mcp/test/hang-server.mjs');
const DEEP_SERVER = join(import.meta.dirname, '../../../packages/mcp/test/deep-schema-server.mjs');

// Real bubblewrap: .ci/run installs it. Only a machine where that install failed may skip, loudly.
const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
if (!probe.ok && unavailable) {
  console.warn(
    `\n!!!!!!!!\n!!! SKIPPING the delta tool expand sandbox test: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`,
  );
}

afterEach(() => cleanupTempDirs());

describe('delta tool expand with mcp_servers', () => {
  it("lists each server's tools under its mcp__ name with the server's schema", async () => {
    const agent = await createTempAgent({
      agentYaml: {
        name: 'mcp-expand',
        llm: { model: 'm' },
        mcp_servers: [
          { name: 'files', command: process.execPath, args: [FILESYSTEM_SERVER, '${CWD}'], tools: ['list_directory', 'read_text_file'] },
        ],
      },
    });
    const cwd = await createTempDir('expand-cwd-');
    const listed = await runDelta(['tool', 'expand', agent, '--json'], { cwd });
    // Without bubblewrap (a machine where it could not be installed) the server runs unsandboxed, as a run's would, with its warning.
    expect(listed.stderr).toBe(probe.ok ? '' : expect.stringContaining('tools run WITHOUT a sandbox'));
    expect(listed.exitCode).toBe(0);
    const { mcp_tools } = JSON.parse(listed.stdout) as {
      mcp_tools: Array<{ name: string; server: string; tool: string; parameters: unknown }>;
    };
    expect(mcp_tools.map((tool) => [tool.name, tool.server, tool.tool])).toEqual([
      ['mcp__files__read_text_file', 'files', 'read_text_file'],
      ['mcp__files__list_directory', 'files', 'list_directory'],
    ]);
    expect(mcp_tools[1]!.parameters).toMatchObject({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });

    const schema = await runDelta(['tool', 'expand', agent, '--schema', '--json'], { cwd });
    const names = (JSON.parse(schema.stdout) as { tools: Array<{ function: { name: string } }> }).tools.map((tool) => tool.function.name);
    expect(names).toEqual(['mcp__files__read_text_file', 'mcp__files__list_directory', 'ask_human']);

    const yaml = await runDelta(['tool', 'expand', agent], { cwd });
    expect(yaml.stdout).toContain('mcp_tools:\n  - name: mcp__files__read_text_file\n    server: files\n    tool: read_text_file\n');
  });

  it('leaves out, with a warning, a tool whose schema nests 100000 levels deep, and lists the rest', async () => {
    const agent = await createTempAgent({
      agentYaml: { name: 'mcp-deep', llm: { model: 'm' }, mcp_servers: [{ name: 'deep', command: process.execPath, args: [DEEP_SERVER] }] },
    });
    const cwd = await createTempDir('expand-cwd-');
    const listed = await runDelta(['tool', 'expand', agent, '--json'], { cwd });
    expect(listed.stderr).toContain(
      'MCP server deep: tool deep is not offered, its inputSchema nests more than 256 levels deep (the most the engine reads)\n' +
        'MCP server deep: tool deep_out is not offered, its outputSchema nests more than 256 levels deep (the most the engine reads)\n',
    );
    expect(listed.exitCode).toBe(0);
    const { mcp_tools } = JSON.parse(listed.stdout) as { mcp_tools: Array<{ name: string }> };
    expect(mcp_tools.map((tool) => tool.name)).toEqual(['mcp__deep__deep_answer', 'mcp__deep__echo']);
  });

  it('says which server could not start, exit 1, and names its field', async () => {
    const agent = await createTempAgent({
      agentYaml: {
        name: 'mcp-broken',
        llm: { model: 'm' },
        mcp_servers: [{ name: 'broken', command: process.execPath, args: ['-e', 'process.exit(4)'] }],
      },
    });
    const result = await runDelta(['tool', 'expand', agent]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('The MCP server broken (');
    expect(result.stderr).toContain('agent.yaml mcp_servers[0]) could not be started');
  });

  // As a run would: a stdio server starts inside the sandbox (the workspace read-only: listing tools changes
  // nothing). The test server's `env` tool says in its description which sandbox it runs in.
  it.skipIf(!probe.ok && unavailable !== undefined)('starts a stdio server inside the sandbox a run would have, read-only', async () => {
    const description = async (sandbox: Record<string, unknown> | undefined) => {
      const agent = await createTempAgent({
        agentYaml: {
          name: 'mcp-expand-sandbox',
          llm: { model: 'm' },
          ...(sandbox ? { sandbox } : {}),
          mcp_servers: [{ name: 'box', command: process.execPath, args: [HANG_SERVER] }],
        },
      });
      const cwd = await createTempDir('expand-cwd-');
      const listed = await runDelta(['tool', 'expand', agent, '--json'], { cwd });
      expect(listed.stderr).toBe('');
      expect(listed.exitCode).toBe(0);
      // Nothing was written where it ran: not even a .delta/.
      expect(readdirSync(cwd)).toEqual([]);
      const { mcp_tools } = JSON.parse(listed.stdout) as { mcp_tools: Array<{ name: string; description: string }> };
      return mcp_tools.find((tool) => tool.name === 'mcp__box__env')!.description;
    };
    expect(await description(undefined)).toContain('(this server runs in sandbox read-only)');
    expect(await description({ mode: 'off' })).toContain('(this server runs in sandbox none)');
  });
});
