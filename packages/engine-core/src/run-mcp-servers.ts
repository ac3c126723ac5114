import { pathInside } from '@delta/command-runner';
import { join } from 'node:path';
import { makeDirectory } from '@delta/errors';
import { startMcpServers } from '@delta/mcp';
import type { Emit, RunContext } from './run-context.js';

/** Where the stderr of each stdio MCP server of a run goes: `<run>/mcp/<server>.stderr.log`. */
export function mcpLogDirectory(runDir: string): string {
  return join(runDir, 'mcp');
}

/**
 * Starts the agent's MCP servers for this engine invocation (a run, or a continued one) and says in the
 * journal which tools each offers. A stdio server runs inside the run's sandbox when one is on. They stop
 * when the run ends or pauses (RunContext.close), before the sandbox does.
 */
export async function startRunMcpServers(context: RunContext, emit: Emit): Promise<void> {
  const entries = context.agent.mcpServers;
  if (entries.length === 0) return;
  const logDir = mcpLogDirectory(context.paths.runDir);
  makeDirectory(logDir);
  const iteration = context.journal.state.iterations;
  const sandbox = context.sandbox;
  context.mcp = await startMcpServers({
    servers: entries,
    agentHome: context.agent.home,
    // Under an image the workspace is at its workdir: ${CWD} names it there (wrap takes the cwd there too).
    workDir: sandbox ? pathInside(sandbox.policy, context.paths.workDir) : context.paths.workDir,
    env: context.env,
    credentials: context.credentials,
    logDir,
    // A stdio server runs inside the run's sandbox, as a tool call does: it sees the workspace as tools do.
    ...(sandbox ? { wrap: (file: string, args: readonly string[], cwd: string) => sandbox.wrap(file, args, cwd) } : {}),
    log: (line) => {
      context.log(line);
      emit({ type: 'SYSTEM_MESSAGE', iteration, level: 'WARN', content: line });
    },
  });
  for (const entry of entries) {
    const tools = context.mcp.tools.filter((tool) => tool.serverName === entry.config.name).map((tool) => tool.name);
    const content = `MCP server ${entry.config.name} started: ${tools.length === 0 ? 'no tools' : tools.join(', ')}`;
    context.log(content);
    emit({ type: 'SYSTEM_MESSAGE', iteration, level: 'INFO', content });
  }
}
