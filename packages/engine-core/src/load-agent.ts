import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigurationError, DeltaError, SystemError } from '@delta/errors';
import { loadContextManifest, type LoadedContextManifest } from '@delta/context-builder';
import { loadHooksConfig, type HooksConfig } from '@delta/hooks';
import { formatProblem, type ConfigProblem } from '@delta/yaml-config';
import type { McpServerEntry } from '@delta/mcp';
import type { ExpandedTool } from '@delta/tool-expander';
import { AgentConfig } from './agent-config.js';
import { SANDBOX_ENV_HINT } from './sandbox-env-config.js';
import { importBoundary } from './import-boundary.js';
import { describeAgentUnknownKey } from './llm-parameters.js';
import { mergeMcpServers } from './merge-mcp-servers.js';
import { z } from 'zod';
import { ConfigProblems } from './config-problems.js';
import { mergeTools, type ToolOrigin } from './merge-tools.js';
import {
  applyConfigOverrides,
  overrideProblems,
  parseConfigOverrides,
  type ConfigOverride,
  type ConfigOverrides,
} from './config-overrides.js';
import { readConfigFile } from './read-config-file.js';
import { MCP_SERVERS_HINT, resolveImports } from './resolve-imports.js';

/** An agent directory, loaded and validated: everything a run needs from it. */
export interface LoadedAgent {
  /** The agent directory, absolute and with symlinks resolved. */
  home: string;
  configFile: string;
  config: AgentConfig;
  /** Imported files (real paths) in the order their tools were merged. */
  imports: string[];
  /** The merged tools: imports in order, then the agent's own (last write wins). */
  tools: ExpandedTool[];
  /** Where each tool (by name) was defined. */
  toolOrigins: Map<string, ToolOrigin>;
  /** The MCP servers (`mcp_servers:` of the imports, then the agent's own; last write wins), each with where it was written. */
  mcpServers: McpServerEntry[];
  /** The lifecycle hooks, from hooks.yaml (or the legacy `lifecycle_hooks` of agent.yaml); empty when none. */
  hooks: HooksConfig;
  /** The file the hooks came from, when there are any. */
  hooksFile?: string;
  context: LoadedContextManifest;
  /** Deprecations and unknown keys, each with its file and field. */
  warnings: ConfigProblem[];
  /** The overrides applied to agent.yaml (`--model`, `--set`), in order; empty when none. */
  overrides: ConfigOverride[];
}

export interface LoadAgentOptions {
  /** Every warning is an error (the CLI's `--strict`): the agent loads only when it has none. */
  strict?: boolean;
  /**
   * Changes to agent.yaml for this load (the CLI's `--model` and `--set`), applied to the parsed file
   * before it is validated, so each is checked like the file, with the same messages.
   */
  overrides?: ConfigOverrides;
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
        message:
          '[DEPRECATION WARNING] both agent.yaml and config.yaml exist; agent.yaml is used and config.yaml is ignored (delete or merge config.yaml)',
      });
    }
    return agentFile;
  }
  if (existsSync(legacyFile)) {
    warnings.push({
      file: legacyFile,
      field: '(file)',
      message: '[DEPRECATION WARNING] config.yaml is deprecated and will stop working in v2.0; rename it to agent.yaml',
    });
    return legacyFile;
  }
  throw new ConfigurationError(`No agent.yaml in ${home}.`, {
    code: 'AGENT_CONFIG_MISSING',
    file: agentFile,
    hint: 'An agent directory holds agent.yaml, system_prompt.md and context.yaml. `delta init <name>` creates one.',
  });
}

/** Reads a file of the agent through another package, turning a raw read or YAML failure into a ConfigurationError. */
function asConfigurationError<T>(file: string, read: () => T, hint: string): T {
  try {
    return read();
  } catch (error) {
    if (DeltaError.isInstance(error)) throw error;
    throw new ConfigurationError(`${file} could not be read: ${error instanceof Error ? error.message : String(error)}`, {
      code: 'CONFIG_INVALID',
      file,
      hint,
      cause: error,
    });
  }
}

/** context.yaml through @delta/context-builder, with any raw read or YAML failure turned into a ConfigurationError. */
function loadContext(home: string): LoadedContextManifest {
  return asConfigurationError(
    join(home, 'context.yaml'),
    () => loadContextManifest(home),
    'context.yaml must be a UTF-8 YAML file with a sources: list; `delta init` writes the default one.',
  );
}

function hintForAgentField(field: string): string | undefined {
  if (field.startsWith('llm.pricing')) {
    return 'llm.pricing gives the prices per million tokens, e.g.\nllm:\n  pricing:\n    input_per_million: 2.5\n    output_per_million: 10\n    currency: USD';
  }
  if (field.startsWith('llm.extra_body')) {
    return 'llm.extra_body maps server-specific parameters to their values, merged into the request as written, e.g.\nllm:\n  extra_body:\n    top_k: 40';
  }
  if (field.startsWith('llm')) return 'llm needs at least `model: <model name>`, e.g.\nllm:\n  model: gpt-4o\n  temperature: 0.7  # 0 to 2';
  if (field === 'name') return 'Give the agent a name: `name: my-agent`.';
  if (field.startsWith('max_iterations')) return 'max_iterations is a whole number of at least 1, e.g. `max_iterations: 30`.';
  if (field.startsWith('imports'))
    return 'imports is a list of paths to YAML files holding tools, e.g.\nimports:\n  - ./tools/file-ops.yaml';
  if (field.startsWith('mcp_servers')) return MCP_SERVERS_HINT;
  if (field.startsWith('sandbox.env')) return SANDBOX_ENV_HINT;
  if (field.startsWith('tools')) return 'tools is a list of tool definitions, e.g.\ntools:\n  - name: greet\n    exec: "echo ${text}"';
  if (field === 'system_prompt')
    return 'system_prompt is the path of the prompt file, relative to the agent directory: `system_prompt: system_prompt.md`.';
  if (field === 'version' || field === 'description') return `Write ${field} as text; quote it if it looks like a number: ${field}: "1.0".`;
  if (field === '') return 'agent.yaml is a mapping of keys (name, llm, tools, ...), not a list or a single value.';
  return undefined;
}

/**
 * Loads and validates an agent directory (spec 000 section 2.7.5): agent.yaml (or the legacy
 * config.yaml), its imports, its tools, and context.yaml. Every problem is a ConfigurationError
 * naming the file, the line and column, the field and the fix; with `strict`, so is every warning.
 */
export function loadAgent(agentDir: string, options: LoadAgentOptions = {}): LoadedAgent {
  const home = resolveAgentHome(agentDir);
  const warnings: ConfigProblem[] = [];
  const configFile = locateConfigFile(home, warnings);
  const overrides = parseConfigOverrides(options.overrides ?? {});
  // Every file is checked before anything is thrown: all the mistakes of an agent are reported at once.
  const problems = new ConfigProblems();
  const parsed = problems.attempt(() => readAgentConfig(configFile, overrides));
  const config = parsed?.data;
  if (parsed) {
    warnings.push(...parsed.warnings);
    problems.attempt(() => checkSystemPrompt(home, configFile, parsed));
  }

  const imported = parsed
    ? problems.attempt(() =>
        resolveImports({ file: configFile, imports: parsed.data.imports, locate: parsed.locate }, importBoundary(home)),
      )
    : undefined;
  if (imported) warnings.push(...imported.warnings);
  // agent.yaml that does not fit its schema still has its tools checked, read on their own.
  const own = parsed ?? toolsAlone(configFile);
  const sources = own
    ? [
        ...(imported?.sources ?? []),
        { file: configFile, definitions: own.data.tools ?? [], mcpServers: parsed?.data.mcp_servers ?? [], locate: own.locate },
      ]
    : [];
  const merged = problems.attempt(() => mergeTools(sources));
  if (merged) warnings.push(...merged.warnings);
  const mcpServers = problems.attempt(() => mergeMcpServers(sources));

  const hooks = problems.attempt(() =>
    asConfigurationError(
      join(home, 'hooks.yaml'),
      () => loadHooksConfig({ agentHome: home, legacyLifecycleHooks: config?.lifecycle_hooks, legacyFile: configFile }),
      'hooks.yaml must be a UTF-8 YAML file mapping hook names to {command: [...]}; see docs/hooks.md.',
    ),
  );
  if (hooks) warnings.push(...hooks.warnings);

  const context = problems.attempt(() => loadContext(home));
  if (context) warnings.push(...context.warnings);
  problems.throwIfAny(`The agent ${home}`);
  if (!parsed || !config || !imported || !merged || !mcpServers || !hooks || !context)
    throw new SystemError(`Loading the agent ${home} failed without saying why: a step gave no result and no error.`, { code: 'INTERNAL' });
  if (options.strict === true && warnings.length > 0) throw strictError(home, warnings);
  return {
    home,
    configFile,
    config,
    imports: imported.sources.map((source) => source.file),
    tools: merged.tools,
    toolOrigins: merged.origins,
    mcpServers,
    hooks: hooks.hooks,
    ...(hooks.file === undefined ? {} : { hooksFile: hooks.file }),
    context,
    warnings,
    overrides,
  };
}

/** Only the `tools:` of an agent.yaml whose other keys are wrong, so that its tools' errors are reported too. */
function toolsAlone(configFile: string) {
  try {
    return readConfigFile(configFile, z.looseObject({ tools: z.array(z.unknown()).optional().catch(undefined) }), { missingHint: '' });
  } catch {
    return undefined;
  }
}

/** `system_prompt:` names a file that exists. */
function checkSystemPrompt(home: string, configFile: string, parsed: ReturnType<typeof readAgentConfig>): void {
  if (parsed.data.system_prompt === undefined) return;
  const prompt = resolve(home, parsed.data.system_prompt);
  if (existsSync(prompt) && !statSync(prompt).isDirectory()) return;
  const position = parsed.locate(['system_prompt']);
  throw new ConfigurationError(
    `${configFile}${position ? `:${position.line}:${position.column}` : ''} system_prompt: ${prompt} ${existsSync(prompt) ? 'is a directory, not a file' : 'does not exist'}`,
    {
      code: 'CONFIG_INVALID',
      file: configFile,
      field: 'system_prompt',
      hint: 'Create the file, or fix the path (it is relative to the agent directory).',
    },
  );
}

/** agent.yaml with the overrides applied; a problem an override caused says which flag it came from. */
function readAgentConfig(configFile: string, overrides: readonly ConfigOverride[]) {
  let parsed;
  try {
    parsed = readConfigFile(configFile, AgentConfig, {
      missingHint: 'An agent directory holds agent.yaml, system_prompt.md and context.yaml. `delta init <name>` creates one.',
      hintFor: hintForAgentField,
      describeUnknownKey: describeAgentUnknownKey,
      ...(overrides.length > 0 ? { edit: (document) => applyConfigOverrides(document, overrides) } : {}),
    });
  } catch (error) {
    throw overrideProblems(configFile, error, [], overrides) ?? error;
  }
  const refused = overrideProblems(configFile, undefined, parsed.warnings, overrides);
  if (refused) throw refused;
  return parsed;
}

/** In strict mode the warnings are the error: all of them, each with its file, line and field. */
function strictError(home: string, warnings: readonly ConfigProblem[]): ConfigurationError {
  const count = warnings.length === 1 ? 'a warning' : `${warnings.length} warnings`;
  return new ConfigurationError(
    `The agent ${home} has ${count}, and strict mode makes every warning an error:\n${warnings.map((warning) => `  - ${formatProblem(warning)}`).join('\n')}`,
    {
      code: 'CONFIG_STRICT',
      file: warnings[0]?.file,
      field: warnings[0]?.field,
      hint: 'Fix each one as its message says, or run without --strict (strict: false) to go on with the warnings.',
    },
  );
}
