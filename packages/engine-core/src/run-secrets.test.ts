import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { startHttpMcpServer } from '../../mcp/test/http-server.mjs';
import { loadAgent, startRun } from './index.js';
import { runSecrets } from './run-secrets.js';

const TOKEN = 'mcp-token-0123456789abcdef';

afterEach(cleanupTestResources);

function filesUnder(dir: string): Array<{ path: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() && statSync(path).size < 1 << 26 ? [{ path, text: readFileSync(path, 'latin1') }] : [];
  });
}

describe('the secrets of a run', () => {
  it('are the model key and the credentials agent.yaml gives its MCP servers, by their names, 8 characters or more', () => {
    const mcpServers = [
      { config: { name: 'a', url: 'http://x/mcp', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' } } },
      { config: { name: 'b', command: 'srv', env: { GITHUB_TOKEN: 'ghp_abcdefgh', REGION: 'eu-west-1-long', SHORT_TOKEN: 'abc' } } },
    ] as unknown as Parameters<typeof runSecrets>[1]['mcpServers'];
    expect(runSecrets('sk-model-key-123', { mcpServers })).toEqual([`Bearer ${TOKEN}`, TOKEN, 'sk-model-key-123', 'ghp_abcdefgh']);
    expect(runSecrets(undefined, { mcpServers: [] })).toEqual([]);
  });

  it('an MCP server that quotes its Authorization token back: the token is nowhere under .delta/, the next request holds none', async () => {
    const http = await startHttpMcpServer();
    try {
      const workDir = await createTempDir('mcp-secret-');
      const home = await createTempAgent({
        agentYaml: {
          name: 'mcp-secret',
          llm: { model: 'm', max_retries: 0 },
          mcp_servers: [{ name: 'remote', url: http.url, headers: { Authorization: `Bearer ${TOKEN}` } }],
        },
      });
      const server = await startFakeLlm({
        script: [{ tool_calls: [{ name: 'mcp__remote__whoami', arguments: {} }] }, { content: 'done' }],
      });
      const result = await startRun({
        agent: loadAgent(home),
        message: 'go',
        workDir,
        apiKey: 'sk-test-model-key',
        baseUrl: server.baseUrl,
      });
      expect(result.status).toBe('COMPLETED');
      // The server did get the token and quoted it; the model got it redacted.
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('authorization: [REDACTED]');
      expect(JSON.stringify(server.requests.map((request) => request.body))).not.toContain(TOKEN);
      const leaks = filesUnder(join(workDir, '.delta')).filter(({ text }) => text.includes(TOKEN));
      expect(leaks.map(({ path }) => path)).toEqual([]);
    } finally {
      await http.close();
    }
  });
});
