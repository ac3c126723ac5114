import type { LoadedAgent } from './load-agent.js';

function hideValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(values).map((name) => [name, '(not recorded)']));
}

/**
 * The configuration a run really uses (ENGINE_START's `config`, spec 000 section 2.1.2): agent.yaml as
 * validated, with its defaults and the overrides applied, the merged tools (imports included), the
 * iteration budget of this engine invocation and the model endpoint. Never a key: the endpoint is a
 * URL, and the key lives only in the environment or a `.env` file.
 */
export function effectiveConfig(agent: LoadedAgent, settings: { maxIterations: number; baseUrl: string }): Record<string, unknown> {
  const { tools: _definitions, lifecycle_hooks: _legacyHooks, ...config } = agent.config;
  return {
    ...config,
    max_iterations: settings.maxIterations,
    base_url: settings.baseUrl,
    imports: agent.imports,
    tools: agent.tools,
    // Merged (imports included); the values of env and headers may be secrets (a token), so only their names.
    mcp_servers: agent.mcpServers.map(({ config: server }) => ({
      ...server,
      ...(server.env === undefined ? {} : { env: hideValues(server.env) }),
      ...(server.headers === undefined ? {} : { headers: hideValues(server.headers) }),
    })),
    hooks: Object.keys(agent.hooks).filter((name) => agent.hooks[name as keyof typeof agent.hooks] !== undefined),
    ...(agent.overrides.length > 0 ? { overrides: agent.overrides.map((override) => override.source) } : {}),
  };
}
