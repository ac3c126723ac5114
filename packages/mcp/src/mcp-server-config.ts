import { z } from 'zod';

/** What an MCP call may take by default before it counts as a timeout: the same as a command tool. */
export const DEFAULT_MCP_TIMEOUT_MS = 120_000;

/** The engine variables a server's `args`, `env` and `cwd` may name; nothing else is filled in. */
export const MCP_VARIABLES: readonly string[] = ['AGENT_HOME', 'CWD'];

const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** A `${NAME}` that is not an engine variable, so that a typo is an error rather than text passed on. */
function unknownVariable(text: string): string | undefined {
  for (const match of text.matchAll(/\$\{([^}]*)\}/g)) {
    if (!MCP_VARIABLES.includes(match[1]!)) return match[0];
  }
  return undefined;
}

const WithVariables = z.string().superRefine((text, context) => {
  const unknown = unknownVariable(text);
  if (unknown !== undefined) {
    context.addIssue({
      code: 'custom',
      message: `${unknown} is not a variable the engine fills in here (only ${MCP_VARIABLES.map((name) => `\${${name}}`).join(' and ')})`,
    });
  }
});

/**
 * One entry of `mcp_servers:` in agent.yaml (or an imported file): a stdio server started as a command,
 * or a Streamable HTTP server at `url`. Its tools are offered as `mcp__<name>__<tool>`.
 */
export const McpServerConfig = z
  .strictObject({
    /** Letters, digits, `-`, and single `_`: `__` separates the parts of an offered tool's name. */
    name: z
      .string()
      .min(1)
      .max(32)
      .regex(SERVER_NAME, 'letters, digits, - and single _ only (for example files or git-hub); __ separates server and tool names'),
    command: z.string().min(1).optional(),
    args: z.array(WithVariables).optional(),
    env: z.record(z.string(), WithVariables).optional(),
    /** The server's working directory; relative to the agent directory. The workspace by default. */
    cwd: WithVariables.min(1).optional(),
    url: z.url({ protocol: /^https?$/ }).optional(),
    /** HTTP headers sent to a `url` server with every request (an Authorization header, say). */
    headers: z.record(z.string(), z.string()).optional(),
    /** Only these tools of the server are offered (their names as the server gives them); all by default. */
    tools: z.array(z.string().min(1)).optional(),
    /** How long one call may take; then the server is restarted and the model told. */
    timeout_ms: z.number().int().positive().optional(),
    /** The model credentials (DELTA_API_KEY, DELTA_BASE_URL) in the server's environment; off by default, as for tools. */
    pass_model_credentials: z.boolean().optional(),
  })
  .superRefine((server, context) => {
    if (server.command === undefined && server.url === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'a server needs command: (a stdio server) or url: (Streamable HTTP)',
      });
    }
    if (server.command !== undefined && server.url !== undefined) {
      context.addIssue({ code: 'custom', path: ['url'], message: 'give command: or url:, not both' });
    }
    if (server.url !== undefined) {
      for (const key of ['args', 'env', 'cwd', 'pass_model_credentials'] as const) {
        if (server[key] !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `${key} is for stdio servers (command:); a url: server is already running`,
          });
        }
      }
    }
    if (server.command !== undefined && server.headers !== undefined) {
      context.addIssue({ code: 'custom', path: ['headers'], message: 'headers is for url: servers; a stdio server takes env:' });
    }
  });
export type McpServerConfig = z.infer<typeof McpServerConfig>;

/** Fills in `${AGENT_HOME}` and `${CWD}` (validated by the schema: nothing else is left). */
export function fillMcpVariables(text: string, variables: Record<string, string>): string {
  return text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => variables[name] ?? whole);
}
