import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { Document, isNode, stringify } from 'yaml';
import type { ExpandedDefinition, ExpandedTool } from '@delta/tool-expander';
import { placeholderNotes } from '@delta/views';
import { printConfigWarning } from './config-warnings.js';
import { usageError } from './usage-error.js';

export interface ToolExpandFlags {
  json?: boolean;
  schema?: boolean;
  strict?: boolean;
}

/** The agent directory for a path that is either the directory or its agent.yaml / config.yaml. */
function agentDirectory(target: string): string {
  const path = resolve(target);
  if (existsSync(path) && statSync(path).isFile()) {
    if (!['agent.yaml', 'config.yaml'].includes(basename(path))) {
      throw usageError(
        `${path} is not an agent.yaml.`,
        'Pass an agent directory or its agent.yaml: delta tool expand ./my-agent/agent.yaml',
      );
    }
    return dirname(path);
  }
  return path;
}

/**
 * `delta tool expand`: loads the agent exactly as a run does (imports included) and prints each tool in
 * its expanded form, or with --schema the function definitions the model receives (ask_human included).
 */
export async function toolExpandCommand(target: string | undefined, flags: ToolExpandFlags): Promise<number> {
  const { listMcpTools, loadAgent, requestTools, toolEnvironment } = await import('@delta/engine');
  const { toExpandedDefinition } = await import('@delta/tool-expander');
  const agent = loadAgent(agentDirectory(target ?? '.'), { strict: flags.strict === true });
  for (const warning of agent.warnings) printConfigWarning(warning);
  // What a run would warn of the tools' environment (sandbox.env: inherit: all, names not given).
  for (const line of toolEnvironment(process.env, { policy: agent.config.sandbox?.env }).warnings)
    process.stderr.write(`warning: ${line}\n`);
  // The MCP servers are started, asked for their tools and stopped, with the current directory as ${CWD},
  // stdio servers in the sandbox a run there would have (its workspace read-only).
  const mcpTools = await listMcpTools(agent, process.cwd(), { onWarning: (line) => process.stderr.write(`${line}\n`) });
  // --schema: exactly the tools every request carries, ask_human included unless the agent turned it off.
  if (flags.schema) {
    const tools = requestTools(agent, mcpTools);
    process.stdout.write(flags.json ? `${JSON.stringify({ tools }, null, 2)}\n` : stringify({ tools }, { lineWidth: 0 }));
    return 0;
  }
  const tools = agent.tools.map(toExpandedDefinition);
  const mcp_tools = mcpTools.map((tool) => ({
    name: tool.name,
    server: tool.serverName,
    tool: tool.toolName,
    description: tool.description,
    parameters: tool.inputSchema,
  }));
  const listed = mcp_tools.length > 0 ? { tools, mcp_tools } : { tools };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
  } else {
    const document = withPlaceholderNotes(tools, agent.tools);
    if (mcp_tools.length > 0) document.set('mcp_tools', mcp_tools);
    process.stdout.write(document.toString({ lineWidth: 0 }));
  }
  return 0;
}

/** The tools as YAML, a note above each command (or exec: template) on what its placeholders are. */
function withPlaceholderNotes(tools: ExpandedDefinition[], expanded: readonly ExpandedTool[]): Document {
  const document = new Document({ tools });
  tools.forEach((tool, index) => {
    const notes = placeholderNotes(tool, expanded[index]?.mode);
    const command = document.getIn(['tools', index, tool.command === undefined ? 'exec' : 'command'], true);
    if (notes.length > 0 && isNode(command)) command.commentBefore = ` ${notes.join('; ')}`;
  });
  return document;
}
