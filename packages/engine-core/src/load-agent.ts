import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '@delta/errors';
import { loadContextManifest, type LoadedContextManifest } from '@delta/context-builder';
import { readYamlConfig, type ConfigProblem } from '@delta/yaml-config';
import { expandTool, type ExpandedTool } from '@delta/tool-expander';
import { AgentConfig } from './agent-config.js';
import { BUILT_IN_TOOL_NAMES } from './built-in-tools.js';

/** An agent directory, loaded and validated: everything a run needs from it. */
export interface LoadedAgent {
  /** The agent directory, absolute and with symlinks resolved. */
  home: string;
  configFile: string;
  config: AgentConfig;
  tools: ExpandedTool[];
  context: LoadedContextManifest;
  /** Deprecations and unknown keys, each with its file and field. */
  warnings: ConfigProblem[];
}

function resolveAgentHome(agentDir: string): string {
  const absolute = resolve(agentDir);
  if (!existsSync(absolute)) {
    throw new ConfigurationError(`Agent directory ${absolute} does not exist.`, {
      code: 'AGENT_NOT_FOUND',
      hint: 'Pass the directory that holds agent.yaml with --agent, or create one with `delta init <name>`.',
    });
  }
  if (!statSync(absolute).isDirectory()) {
    throw new ConfigurationError(`${absolute} is not a directory.`, {
      code: 'AGENT_NOT_FOUND',
      hint: '--agent takes the agent directory (the one holding agent.yaml), not a file.',
    });
  }
  return realpathSync(absolute);
}

function locateConfigFile(home: string, warnings: ConfigProblem[]): string {
  const agentFile = join(home, 'agent.yaml');
  const legacyFile = join(home, 'config.yaml');
  if (existsSync(agentFile)) {
    if (existsSync(legacyFile)) {
      warnings.push({
        file: legacyFile,
        field: '(file)',
        message: '[DEPRECATION WARNING] both agent.yaml and config.yaml exist; agent.yaml is used and config.yaml is ignored',
      });
    }
    return agentFile;
  }
  if (existsSync(legacyFile)) {
    warnings.push({
      file: legacyFile,
      field: '(file)',
      message: '[DEPRECATION WARNING] config.yaml is deprecated; rename it to agent.yaml',
    });
    return legacyFile;
  }
  throw new ConfigurationError(`No agent.yaml in ${home}.`, {
    code: 'AGENT_CONFIG_MISSING',
    file: agentFile,
    hint: 'An agent directory holds agent.yaml, system_prompt.md and context.yaml. `delta init <name>` creates one.',
  });
}

/** Loads and validates an agent directory: agent.yaml, its tools, and context.yaml. */
export function loadAgent(agentDir: string): LoadedAgent {
  const home = resolveAgentHome(agentDir);
  const warnings: ConfigProblem[] = [];
  const configFile = locateConfigFile(home, warnings);
  const parsed = readYamlConfig(configFile, AgentConfig, {
    hintFor: (field) => {
      if (field.startsWith('llm')) return 'llm needs at least `model: <model name>`, e.g. `llm: {model: gpt-4o}`.';
      if (field === 'name') return 'Give the agent a name: `name: my-agent`.';
      if (field.startsWith('max_iterations')) return 'max_iterations is a whole number of at least 1.';
      return undefined;
    },
  });
  warnings.push(...parsed.warnings);
  const config = parsed.data;

  if (config.system_prompt !== undefined && !existsSync(join(home, config.system_prompt))) {
    const position = parsed.locate(['system_prompt']);
    throw new ConfigurationError(
      `${configFile}${position ? `:${position.line}:${position.column}` : ''} system_prompt: ${join(home, config.system_prompt)} does not exist`,
      { code: 'CONFIG_INVALID', file: configFile, field: 'system_prompt', hint: 'Create the file, or fix the path (it is relative to the agent directory).' },
    );
  }

  const tools: ExpandedTool[] = [];
  const seen = new Map<string, number>();
  config.tools.forEach((definition, index) => {
    let tool: ExpandedTool;
    try {
      tool = expandTool(definition, { file: configFile, path: `tools[${index}]` });
    } catch (error) {
      const position = parsed.locate(['tools', index]);
      if (position && error instanceof Error && !error.message.startsWith(`${configFile}:`)) {
        error.message = `${configFile}:${position.line}:${position.column} ${error.message.replace(`${configFile} `, '')}`;
      }
      throw error;
    }
    if (BUILT_IN_TOOL_NAMES.includes(tool.name)) {
      throw new ConfigurationError(`${configFile} tools[${index}].name: "${tool.name}" is a built-in tool of the engine`, {
        code: 'CONFIG_INVALID',
        file: configFile,
        field: `tools[${index}].name`,
        hint: `Choose another name; ${BUILT_IN_TOOL_NAMES.join(', ')} ${BUILT_IN_TOOL_NAMES.length === 1 ? 'is' : 'are'} always available.`,
      });
    }
    const earlier = seen.get(tool.name);
    if (earlier !== undefined) {
      throw new ConfigurationError(`${configFile} tools[${index}].name: "${tool.name}" is already defined at tools[${earlier}]`, {
        code: 'CONFIG_INVALID',
        file: configFile,
        field: `tools[${index}].name`,
        hint: 'Tool names must be unique within agent.yaml; rename one of them.',
      });
    }
    seen.set(tool.name, index);
    tools.push(tool);
  });

  const context = loadContextManifest(home);
  warnings.push(...context.warnings);
  return { home, configFile, config, tools, context, warnings };
}
