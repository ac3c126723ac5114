// A stdio MCP server runs inside the run's sandbox (real bubblewrap), as a tool does: it may write the
// workspace but not .delta/, nor anything outside it, and its /tmp is the run's own. The model asks a test
// server of ours to write files; what is on disk afterwards is the answer.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { startHttpMcpServer } from '../../mcp/test/http-server.mjs';
import { loadAgent, startRun } from './index.js';

const HANG_SERVER = join(import.meta.dirname, '../../mcp/test/hang-server.mjs');

// Real bubblewrap: .ci/run installs it. Only a machine where that install failed may skip, loudly.
const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
if (!probe.ok && unavailable) {
  console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandboxed MCP server tests: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`);
}

afterEach(cleanupTestResources);

describe.skipIf(!probe.ok && unavailable !== undefined)('a stdio MCP server in the run sandbox (real bubblewrap)', () => {
  it('writes the workspace, but neither .delta/ nor outside it; its /tmp is private; its env is as configured', async () => {
    const workDir = await createTempDir('mcp-sandbox-');
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-sandboxed',
        llm: { model: 'm', max_retries: 0 },
        mcp_servers: [{ name: 'box', command: process.execPath, args: [HANG_SERVER], env: { REGION: 'eu-west' } }],
      },
    });
    // Outside the workspace: the agent's own directory (visible, read-only) and a directory of this machine's
    // /tmp (hidden by the run's private /tmp). Each holds a marker the server is asked to overwrite.
    const prompt = join(home, 'system_prompt.md');
    const promptBefore = readFileSync(prompt, 'utf8');
    const outside = mkdtempSync(join(tmpdir(), 'mcp-sandbox-outside-'));
    const marker = join(outside, 'marker.txt');
    writeFileSync(marker, 'untouched\n');
    const privateTmp = join('/tmp', `mcp-sandbox-private-${process.pid}-${Date.now()}.txt`);
    const write = (path: string) => ({ name: 'mcp__box__write', arguments: { path, text: 'written by the server\n' } });
    const server = await startFakeLlm({
      script: [
        {
          tool_calls: [
            write(join(workDir, 'ok.txt')),
            write(join(workDir, '.delta', 'injected.txt')),
            write(prompt),
            write(marker),
            write(privateTmp),
            { name: 'mcp__box__env', arguments: { name: 'DELTA_SANDBOX' } },
            { name: 'mcp__box__env', arguments: { name: 'REGION' } },
          ],
        },
        { content: 'done' },
      ],
    });
    try {
      const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
      expect(result.status).toBe('COMPLETED');
      const events = readJournal(result.paths.journal);
      expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({ sandbox: { mode: 'workspace-write', network: true } });
      const observed = events.flatMap((event) => (event.type === 'ACTION_RESULT' ? [[event.status, event.observation_content]] : []));
      expect(observed).toEqual([
        ['SUCCESS', `wrote ${join(workDir, 'ok.txt')}`],
        ['FAILED', `cannot write ${join(workDir, '.delta', 'injected.txt')}: EROFS`],
        ['FAILED', `cannot write ${prompt}: EROFS`],
        // The run's /tmp holds no such directory.
        ['FAILED', `cannot write ${marker}: ENOENT`],
        ['SUCCESS', `wrote ${privateTmp}`],
        ['SUCCESS', 'DELTA_SANDBOX=workspace-write'],
        ['SUCCESS', 'REGION=eu-west'],
      ]);
      expect(readFileSync(join(workDir, 'ok.txt'), 'utf8')).toBe('written by the server\n');
      expect(existsSync(join(workDir, '.delta', 'injected.txt'))).toBe(false);
      expect(readFileSync(prompt, 'utf8')).toBe(promptBefore);
      expect(readFileSync(marker, 'utf8')).toBe('untouched\n');
      // Written to the run's private /tmp, which went with the run: not this machine's.
      expect(existsSync(privateTmp)).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
      rmSync(privateTmp, { force: true });
    }
  });

  it('network off: a stdio server has none, while a url: server (not started by the engine) is reached as ever', async () => {
    const http = await startHttpMcpServer();
    const port = Number(new URL(http.url).port);
    const workDir = await createTempDir('mcp-sandbox-');
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-offline',
        llm: { model: 'm', max_retries: 0 },
        sandbox: { mode: 'workspace-write', network: false },
        mcp_servers: [
          { name: 'box', command: process.execPath, args: [HANG_SERVER] },
          { name: 'remote', url: http.url },
        ],
      },
    });
    const server = await startFakeLlm({
      script: [
        {
          tool_calls: [
            { name: 'mcp__box__connect', arguments: { port } },
            { name: 'mcp__remote__whoami', arguments: {} },
          ],
        },
        { content: 'done' },
      ],
    });
    try {
      const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
      expect(result.status).toBe('COMPLETED');
      const events = readJournal(result.paths.journal);
      expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({ sandbox: { mode: 'workspace-write', network: false } });
      const observed = events.flatMap((event) =>
        event.type === 'ACTION_RESULT' ? [[event.tool_name, event.status, event.observation_content]] : [],
      );
      expect(observed).toEqual([
        // Its own network namespace: this machine's 127.0.0.1 is not there.
        ['mcp__box__connect', 'FAILED', 'cannot connect: ECONNREFUSED'],
        ['mcp__remote__whoami', 'SUCCESS', 'authorization: (none)'],
      ]);
    } finally {
      await http.close();
    }
  });
});
