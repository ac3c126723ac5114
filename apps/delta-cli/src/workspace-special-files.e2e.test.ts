// A FIFO or a unix socket in the workspace (a tool can make either) must not break what the engine does
// after looking at it: Node 20's fs keeps the last stat of a sync call in one buffer that its module
// resolver reads too, so a stat of a FIFO made the next lazy import (the MCP client) fail with
// "Cannot find package 'zod'".
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

const HANG_SERVER = join(import.meta.dirname, '../../../packages/mcp/test/hang-server.mjs');

afterEach(cleanupTestResources);

describe('a FIFO and a unix socket in the workspace', () => {
  it('leave a run with a stdio MCP server, and its continue, working', async () => {
    const agent = await createTempAgent({
      agentYaml: {
        name: 'special-files',
        llm: { model: 'm' },
        ask_human: false,
        mcp_servers: [{ name: 'hang', command: process.execPath, args: [HANG_SERVER] }],
      },
    });
    const workDir = join(await createTempDir('special-files-'), 'w');
    execFileSync('mkdir', ['-p', workDir]);
    execFileSync('mkfifo', [join(workDir, 'pipe')]);
    // A socket file left by a process that bound it and ended.
    execFileSync('python3', ['-c', `import socket; socket.socket(socket.AF_UNIX).bind(${JSON.stringify(join(workDir, 'sock'))})`]);
    expect(existsSync(join(workDir, 'sock'))).toBe(true);
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'mcp__hang__echo', arguments: { text: 'one' } }] },
        { content: 'first done' },
        { tool_calls: [{ name: 'mcp__hang__echo', arguments: { text: 'two' } }] },
        { content: 'second done' },
      ],
    });
    const env = { DELTA_BASE_URL: server.baseUrl, DELTA_API_KEY: 'k' };
    const run = await runDelta(['run', '--agent', agent, '-w', workDir, '-m', 'go', '-y'], { env });
    expect(run.stderr).not.toMatch(/Cannot find package/);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('first done');
    const resumed = await runDelta(['continue', '-w', workDir, '-m', 'again'], { env });
    expect(resumed.stderr).not.toMatch(/Cannot find package/);
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain('second done');
    expect(server.requests[3]!.body).toMatchObject({
      messages: expect.arrayContaining([expect.objectContaining({ role: 'tool', content: expect.stringMatching(/^echo: two/) })]),
    });
  });
});
