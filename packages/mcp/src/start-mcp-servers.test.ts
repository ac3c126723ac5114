// Real MCP servers, started as a run would: @modelcontextprotocol/server-filesystem from npm, and a small
// server of our own that hangs on request so that it can be killed in the middle of a call.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { startHttpMcpServer } from '../test/http-server.mjs';
import { startMcpServers, type McpServers, type StartMcpServersOptions } from './index.js';

const require = createRequire(import.meta.url);
const FILESYSTEM_SERVER = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');
const HANG_SERVER = join(import.meta.dirname, '../test/hang-server.mjs');

let servers: McpServers | undefined;
afterEach(async () => {
  await servers?.close();
  servers = undefined;
  await cleanupTempDirs();
});

async function options(
  entries: StartMcpServersOptions['servers'],
  extra: Partial<StartMcpServersOptions> = {},
): Promise<StartMcpServersOptions> {
  const workDir = await createTempDir('mcp-work-');
  const logDir = await createTempDir('mcp-logs-');
  return { servers: entries, agentHome: workDir, workDir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, logDir, ...extra };
}

function waitFor(check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const poll = () => (check() ? resolve() : setTimeout(poll, 20));
    poll();
  });
}

describe('startMcpServers', () => {
  it('offers server-filesystem tools as mcp__<server>__<tool> with their schemas, and calls them', async () => {
    const settings = await options([
      {
        config: {
          name: 'files',
          command: process.execPath,
          args: [FILESYSTEM_SERVER, '${CWD}'],
          tools: ['read_text_file', 'list_directory'],
        },
        file: 'agent.yaml',
        field: 'mcp_servers[0]',
      },
    ]);
    writeFileSync(join(settings.workDir, 'notes.txt'), 'the answer is 42\n');
    servers = await startMcpServers(settings);
    expect(servers.tools.map((tool) => tool.name).sort()).toEqual(['mcp__files__list_directory', 'mcp__files__read_text_file']);
    const read = servers.find('mcp__files__read_text_file')!;
    expect(read.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });

    const listing = await servers.call('mcp__files__list_directory', { path: settings.workDir });
    expect(listing).toMatchObject({ status: 'SUCCESS', text: '[FILE] notes.txt' });
    const content = await servers.call('mcp__files__read_text_file', { path: join(settings.workDir, 'notes.txt') });
    expect(content.text).toBe('the answer is 42\n');
    const outside = await servers.call('mcp__files__read_text_file', { path: '/etc/hostname' });
    expect(outside.status).toBe('FAILED');
    expect(outside.text).toContain('Access denied');
    // Its stderr went to the log file, not to this process's.
    expect(readFileSync(join(settings.logDir, 'files.stderr.log'), 'utf8')).toContain('Secure MCP Filesystem Server');
  });

  it('names the allow-list entry the server does not have', async () => {
    const settings = await options([
      {
        config: { name: 'files', command: process.execPath, args: [FILESYSTEM_SERVER, '${CWD}'], tools: ['read_text_file', 'rm_rf'] },
        file: 'agent.yaml',
        field: 'mcp_servers[0]',
      },
    ]);
    await expect(startMcpServers(settings)).rejects.toThrow(
      /agent\.yaml mcp_servers\[0\]\.tools\[1\]: the MCP server "files" has no tool named "rm_rf"; it offers: .*read_text_file/,
    );
  });

  it('says a server that cannot start could not, with its stderr log', async () => {
    const settings = await options([
      {
        config: { name: 'broken', command: process.execPath, args: ['-e', 'console.error("no config"); process.exit(3)'] },
        file: 'agent.yaml',
        field: 'mcp_servers[0]',
      },
    ]);
    const error = await startMcpServers(settings).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'MCP_SERVER_FAILED', field: 'mcp_servers[0]' });
    expect((error as Error).message).toContain(`its stderr is in ${join(settings.logDir, 'broken.stderr.log')}`);
    expect(readFileSync(join(settings.logDir, 'broken.stderr.log'), 'utf8')).toBe('no config\n');
  });

  it('a server killed during a call gives an answer that says so, and is restarted once', async () => {
    const settings = await options([
      { config: { name: 'hang', command: process.execPath, args: [HANG_SERVER] }, file: 'agent.yaml', field: 'mcp_servers[0]' },
    ]);
    const pidFile = join(settings.workDir, 'hang.pid');
    settings.env.HANG_PID_FILE = pidFile;
    servers = await startMcpServers(settings);
    const call = servers.call('mcp__hang__hang', {});
    await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    process.kill(pid, 'SIGKILL');
    const killed = await call;
    expect(killed.status).toBe('ERROR');
    expect(killed.text).toBe(
      `Error: the MCP server hang stopped during the call (SIGKILL); its stderr is in ${join(settings.logDir, 'hang.stderr.log')}. It was restarted: call the tool again if you still need it.`,
    );
    const echoed = await servers.call('mcp__hang__echo', { text: 'again' });
    expect(echoed.status).toBe('SUCCESS');
    expect(echoed.text).toMatch(/^echo: again \(pid \d+\)$/);
    expect(echoed.text).not.toContain(`pid ${pid})`);

    // Killed a second time: no second restart.
    const second = servers.call('mcp__hang__hang', {});
    await waitFor(() => readFileSync(pidFile, 'utf8') !== String(pid));
    process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    expect((await second).text).toContain('It was already restarted once in this run, so it is not started again');
    expect((await servers.call('mcp__hang__echo', { text: 'x' })).text).toContain(
      'already restarted once in this run; its tools are unavailable',
    );
  });

  it('an answer over 10 MiB is an observation that says so, and the server goes on answering', async () => {
    const settings = await options([
      { config: { name: 'hang', command: process.execPath, args: [HANG_SERVER] }, file: 'agent.yaml', field: 'mcp_servers[0]' },
    ]);
    servers = await startMcpServers(settings);
    const large = await servers.call('mcp__hang__large', { bytes: 11 * 1024 * 1024 });
    expect(large).toMatchObject({ status: 'ERROR', interrupted: false });
    expect(large.text).toBe(
      'Error: the MCP server hang answered with more than the engine reads: the answer was larger than 10 MiB, the most the engine reads; it was discarded. Ask for less at a time',
    );
    // The same connection, not restarted: the rest of the oversized line was skipped, not read as messages.
    const echoed = await servers.call('mcp__hang__echo', { text: 'after' });
    expect(echoed.text).toMatch(/^echo: after \(pid \d+\)$/);
    expect((await servers.call('mcp__hang__large', { bytes: 1024 * 1024 })).text).toHaveLength(1024 * 1024);
  });

  it('a call past timeout_ms is stopped, and the server restarted', async () => {
    // timeout_ms also bounds starting the server (initialize, tools/list): 1.5 s was too little for a node
    // process to start while CI ran every package's tests at once.
    const settings = await options([
      {
        config: { name: 'hang', command: process.execPath, args: [HANG_SERVER], timeout_ms: 5000 },
        file: 'agent.yaml',
        field: 'mcp_servers[0]',
      },
    ]);
    settings.env.HANG_PID_FILE = join(settings.workDir, 'hang.pid');
    servers = await startMcpServers(settings);
    const timedOut = await servers.call('mcp__hang__hang', {});
    expect(timedOut.text).toBe(
      'Error: the MCP server hang did not answer within 5000 ms (timeout_ms). It was restarted: call the tool again if you still need it.',
    );
    expect((await servers.call('mcp__hang__echo', { text: 'ok' })).status).toBe('SUCCESS');
  });

  it('passes the environment it is given, and the credentials only to a server that opts in', async () => {
    const entries = [
      { config: { name: 'plain', command: process.execPath, args: [HANG_SERVER] }, file: 'a', field: 'mcp_servers[0]' },
      {
        config: { name: 'trusted', command: process.execPath, args: [HANG_SERVER], pass_model_credentials: true, env: { WHERE: '${CWD}' } },
        file: 'a',
        field: 'mcp_servers[1]',
      },
    ];
    const settings = await options(entries, { credentials: { DELTA_API_KEY: 'sk-secret' } });
    servers = await startMcpServers(settings);
    expect((await servers.call('mcp__plain__env', { name: 'DELTA_API_KEY' })).text).toBe('DELTA_API_KEY=(unset)');
    expect((await servers.call('mcp__trusted__env', { name: 'DELTA_API_KEY' })).text).toBe('DELTA_API_KEY=sk-secret');
    expect((await servers.call('mcp__trusted__env', { name: 'WHERE' })).text).toBe(`WHERE=${settings.workDir}`);
  });

  it('reaches a Streamable HTTP server at url:, sending its headers', async () => {
    const http = await startHttpMcpServer();
    try {
      const settings = await options([
        {
          config: { name: 'remote', url: http.url, headers: { Authorization: 'Bearer sk-remote' } },
          file: 'agent.yaml',
          field: 'mcp_servers[0]',
        },
      ]);
      servers = await startMcpServers(settings);
      expect(servers.tools.map((tool) => tool.name)).toEqual(['mcp__remote__whoami']);
      expect(await servers.call('mcp__remote__whoami', {})).toMatchObject({ status: 'SUCCESS', text: 'authorization: Bearer sk-remote' });
    } finally {
      await servers?.close();
      servers = undefined;
      await http.close();
    }
  });

  it('says a url: server that cannot be reached could not be started', async () => {
    const settings = await options([
      { config: { name: 'gone', url: 'http://127.0.0.1:9/mcp', timeout_ms: 5000 }, file: 'agent.yaml', field: 'mcp_servers[0]' },
    ]);
    await expect(startMcpServers(settings)).rejects.toMatchObject({
      code: 'MCP_SERVER_FAILED',
      message: expect.stringContaining('The MCP server gone (agent.yaml mcp_servers[0]) could not be started'),
    });
  });
});
