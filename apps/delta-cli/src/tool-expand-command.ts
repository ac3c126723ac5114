import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { stringify } from 'yaml';
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
  const { loadAgent, requestTools } = await import('@delta/engine');
  const { toExpandedDefinition } = await import('@delta/tool-expander');
  const agent = loadAgent(agentDirectory(target ?? '.'), { strict: flags.strict === true });
  for (const warning of agent.warnings) printConfigWarning(warning);
  // --schema: exactly the tools every request carries, ask_human included unless the agent turned it off.
  const tools = flags.schema ? requestTools(agent) : agent.tools.map(toExpandedDefinition);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify({ tools }, null, 2)}\n`);
  } else {
    process.stdout.write(stringify({ tools }, { lineWidth: 0 }));
  }
  return 0;
}
