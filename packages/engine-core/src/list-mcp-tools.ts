import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { RunSandbox } from '@delta/command-runner';
import { startMcpServers, type McpToolDefinition } from '@delta/mcp';
import type { LoadedAgent } from './load-agent.js';
import { chooseSandbox } from './sandbox-choice.js';
import { runSecrets } from './run-secrets.js';
import { toolEnvironment } from './tool-environment.js';

export interface ListMcpToolsOptions {
  /**
   * The environment the servers start from (default `process.env`): they get of it what agent.yaml's
   * `sandbox.env` allows, as in a run; never the model credentials.
   */
  environment?: NodeJS.ProcessEnv;
  /** Values no server's environment may hold (the model key, say), as EngineOptions.secrets. */
  secrets?: readonly string[];
  /**
   * Lines for a person: the sandbox cannot be had (bubblewrap missing), so the servers run without one; a
   * server's tool is not offered.
   */
  onWarning?: (line: string) => void;
}

/**
 * The tools an agent's MCP servers offer, as a run would offer them: each server is started (in `workDir`,
 * which is `${CWD}`), asked for its tools, and stopped. A stdio server starts inside the sandbox a run in
 * `workDir` would have (agent.yaml's `sandbox:`), except that the workspace is read-only: listing tools
 * changes nothing. Their stderr goes to a temporary directory, removed afterwards unless a server failed
 * (the error names its log there); no server is given the model credentials here.
 */
export async function listMcpTools(agent: LoadedAgent, workDir: string, options: ListMcpToolsOptions = {}): Promise<McpToolDefinition[]> {
  if (agent.mcpServers.length === 0) return [];
  const sandbox = agent.mcpServers.some((entry) => entry.config.command !== undefined) ? startSandbox(agent, workDir, options) : undefined;
  try {
    const logDir = mkdtempSync(`${tmpdir()}/delta-mcp-list-`);
    const servers = await startMcpServers({
      servers: agent.mcpServers,
      agentHome: agent.home,
      workDir,
      env: toolEnvironment(options.environment ?? process.env, {
        policy: agent.config.sandbox?.env,
        secrets: [...runSecrets(undefined, agent), ...(options.secrets ?? [])],
        engine: { DELTA_AGENT_HOME: agent.home, DELTA_CWD: workDir },
        paths: { agentHome: agent.home, workDir },
      }).environment,
      logDir,
      // A tool not offered (its name too long, its schema too deep) is said here as a run says it.
      ...(options.onWarning ? { log: options.onWarning } : {}),
      ...(sandbox ? { wrap: (file: string, args: readonly string[], cwd: string) => sandbox.wrap(file, args, cwd) } : {}),
    });
    await servers.close();
    rmSync(logDir, { recursive: true, force: true });
    return servers.tools;
  } finally {
    await sandbox?.stop();
  }
}

/** The sandbox of a run in `workDir`, its workspace read-only; none when a run would have none. */
function startSandbox(agent: LoadedAgent, workDir: string, options: ListMcpToolsOptions): RunSandbox | undefined {
  const choice = chooseSandbox(agent, workDir, {}, options.environment);
  if (choice.warning) options.onWarning?.(choice.warning);
  if (!choice.policy || !choice.bubblewrap) return undefined;
  // No run directory here: `.delta/` may not exist, and bubblewrap cannot bind what does not. The whole
  // workspace is read-only anyway.
  const policy = {
    ...choice.policy,
    mode: 'read-only' as const,
    protectedPaths: choice.policy.protectedPaths.filter((path) => existsSync(path)),
  };
  return RunSandbox.start(policy, choice.bubblewrap);
}
