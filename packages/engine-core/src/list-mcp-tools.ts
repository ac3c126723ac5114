import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startMcpServers, type McpToolDefinition } from '@delta/mcp';
import type { LoadedAgent } from './load-agent.js';
import { toolEnvironment } from './tool-environment.js';

/**
 * The tools an agent's MCP servers offer, as a run would offer them: each server is started (in `workDir`,
 * which is `${CWD}`), asked for its tools, and stopped. Their stderr goes to a temporary directory, removed
 * afterwards unless a server failed (the error names its log there); no server is given the model credentials here.
 */
export async function listMcpTools(agent: LoadedAgent, workDir: string): Promise<McpToolDefinition[]> {
  if (agent.mcpServers.length === 0) return [];
  const logDir = mkdtempSync(`${tmpdir()}/delta-mcp-list-`);
  const servers = await startMcpServers({
    servers: agent.mcpServers,
    agentHome: agent.home,
    workDir,
    env: toolEnvironment(process.env, undefined, { DELTA_AGENT_HOME: agent.home, DELTA_CWD: workDir }),
    logDir,
  });
  await servers.close();
  rmSync(logDir, { recursive: true, force: true });
  return servers.tools;
}
