import { join, resolve } from 'node:path';
import { ConfigurationError, SystemError } from '@delta/errors';
import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '@delta/errors';
import { callResultText } from './call-result-text.js';
import { McpConnection, type ServerEndpoint } from './mcp-connection.js';
import { McpRequestError } from './mcp-request-error.js';
import type { McpCallResult, McpTool } from './mcp-types.js';
import { DEFAULT_MCP_TIMEOUT_MS, fillMcpVariables } from './mcp-server-config.js';
import { offeredToolName, ownersOfNames } from './mcp-tool-name.js';
import type { McpCallOutcome, McpServerEntry, McpServers, McpToolDefinition, StartMcpServersOptions } from './start-mcp-servers.js';

interface OfferedTool extends McpToolDefinition {
  server: RunningServer;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** One configured server over the run: its live connection, and whether its one restart is used. */
class RunningServer {
  connection: McpConnection | undefined;
  restarted = false;

  constructor(
    readonly entry: McpServerEntry,
    readonly endpoint: ServerEndpoint,
  ) {}

  get name(): string {
    return this.entry.config.name;
  }

  get timeoutMs(): number {
    return this.entry.config.timeout_ms ?? DEFAULT_MCP_TIMEOUT_MS;
  }

  /** Where a person finds out why the server failed: its stderr log, for a stdio server. */
  get whereToLook(): string {
    return this.endpoint.kind === 'stdio' ? `; its stderr is in ${this.endpoint.stderrFile}` : '';
  }

  async start(): Promise<McpTool[]> {
    this.connection = await McpConnection.open(this.endpoint, this.timeoutMs);
    return this.connection.listTools(this.timeoutMs);
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
  }
}

/** The command a stdio server is started with, its variables filled in and wrapped (in the sandbox) when asked. */
async function endpointOf(entry: McpServerEntry, options: StartMcpServersOptions): Promise<ServerEndpoint> {
  const config = entry.config;
  const variables = { AGENT_HOME: options.agentHome, CWD: options.workDir };
  if (config.url !== undefined) return { kind: 'http', url: config.url, headers: config.headers ?? {} };
  const args = (config.args ?? []).map((arg) => fillMcpVariables(arg, variables));
  const cwd = config.cwd === undefined ? options.workDir : resolve(options.agentHome, fillMcpVariables(config.cwd, variables));
  const ownEnv = Object.fromEntries(Object.entries(config.env ?? {}).map(([name, value]) => [name, fillMcpVariables(value, variables)]));
  const command = options.wrap ? await options.wrap(config.command!, args, cwd) : { file: config.command!, args };
  return {
    kind: 'stdio',
    command,
    cwd,
    // The tools' environment (agent.yaml's sandbox.env allow-list), the credentials only if it opts in, then its own env:.
    env: { ...options.env, ...(config.pass_model_credentials === true ? options.credentials : {}), ...ownEnv },
    stderrFile: join(options.logDir, `${config.name}.stderr.log`),
  };
}

/** The tools of a server that are offered: all, or those of its allow-list, which must all exist. */
function offeredTools(server: RunningServer, listed: McpTool[], warn: (line: string) => void): OfferedTool[] {
  const { config, file, field } = server.entry;
  const allowed = config.tools;
  if (allowed !== undefined) {
    const missing = allowed.filter((name) => !listed.some((tool) => tool.name === name));
    if (missing.length > 0) {
      const index = allowed.indexOf(missing[0]!);
      throw new ConfigurationError(
        `${file} ${field}.tools[${index}]: the MCP server "${config.name}" has no tool named "${missing[0]}"; it offers: ${listed.map((tool) => tool.name).join(', ') || '(none)'}`,
        {
          code: 'CONFIG_INVALID',
          file,
          field: `${field}.tools[${index}]`,
          hint: 'List tools by the names the server gives them, or remove tools: to offer them all.',
        },
      );
    }
  }
  const candidates = allowed === undefined ? listed : listed.filter((tool) => allowed.includes(tool.name));
  const owners = ownersOfNames(config.name, candidates);
  const offered: OfferedTool[] = [];
  for (const tool of candidates) {
    const name = offeredToolName(config.name, tool.name);
    if (name === undefined) {
      warn(
        `MCP server ${config.name}: tool ${tool.name} is not offered, its name would be longer than the 64 characters a function name may have`,
      );
      continue;
    }
    const owner = owners.get(name)!;
    if (owner !== tool) {
      warn(
        owner.name === tool.name
          ? `MCP server ${config.name}: tool ${JSON.stringify(tool.name)} is listed more than once; only the first is offered`
          : `MCP server ${config.name}: tool ${JSON.stringify(tool.name)} is not offered, its name would be ${name}, as tool ${JSON.stringify(owner.name)}'s is`,
      );
      continue;
    }
    // Every request to the model carries the schema, and writing JSON that deep overflows the stack.
    const deep = (['inputSchema', 'outputSchema'] as const).find((key) => valueNestsDeeperThan(tool[key], MAX_JSON_DEPTH));
    if (deep !== undefined) {
      warn(
        `MCP server ${config.name}: tool ${tool.name} is not offered, its ${deep} nests more than ${MAX_JSON_DEPTH} levels deep (the most the engine reads)`,
      );
      continue;
    }
    offered.push({
      name,
      server: server,
      serverName: config.name,
      toolName: tool.name,
      description: tool.description ?? tool.title ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
    });
  }
  return offered;
}

/** What went wrong with a call that did not get an answer, and whether the server is to be restarted. */
function callFailure(server: RunningServer, error: unknown): { text: string; restart: boolean } {
  const connection = server.connection;
  const failure = error instanceof McpRequestError ? error.failure : undefined;
  if (failure === 'timeout') {
    return { text: `the MCP server ${server.name} did not answer within ${server.timeoutMs} ms (timeout_ms)`, restart: true };
  }
  if (failure === 'oversized') {
    return {
      text: `the MCP server ${server.name} answered with more than the engine reads: ${errorMessage(error)}. Ask for less at a time`,
      restart: false,
    };
  }
  if (connection === undefined || connection.isClosed || failure === 'closed') {
    const ending = connection?.ending === undefined ? '' : ` (${connection.ending})`;
    return { text: `the MCP server ${server.name} stopped during the call${ending}${server.whereToLook}`, restart: true };
  }
  if (failure === 'unreachable')
    return { text: `the MCP server ${server.name} could not be reached: ${errorMessage(error)}`, restart: false };
  return { text: `the MCP server ${server.name} refused the call: ${errorMessage(error)}`, restart: false };
}

/** The servers of one run, started: their tools, calls routed by offered name, and stopping them all. */
class RunningServers implements McpServers {
  private readonly byName = new Map<string, OfferedTool>();

  constructor(
    private readonly servers: RunningServer[],
    tools: OfferedTool[],
    private readonly options: StartMcpServersOptions,
  ) {
    for (const tool of tools) this.byName.set(tool.name, tool);
  }

  get tools(): McpToolDefinition[] {
    return [...this.byName.values()].map(({ server: _server, ...definition }) => definition);
  }

  find(name: string): McpToolDefinition | undefined {
    const tool = this.byName.get(name);
    if (!tool) return undefined;
    const { server: _server, ...definition } = tool;
    return definition;
  }

  async call(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpCallOutcome> {
    const tool = this.byName.get(name);
    if (!tool) {
      throw new ConfigurationError(`No MCP tool is named ${name} in this run.`, {
        code: 'INVALID_ARGUMENT',
        hint: `Call one of the offered tools (McpServers.tools): ${[...this.byName.keys()].join(', ') || 'none'}.`,
      });
    }
    const server = tool.server;
    const request = { server: server.name, tool: tool.toolName, arguments: args };
    const down = await this.readyOrWhyNot(server);
    if (down !== undefined) return { status: 'ERROR', text: `Error: ${down}`, request, response: { error: down }, interrupted: false };
    let result: McpCallResult;
    try {
      result = await server.connection!.callTool(tool.toolName, args, server.timeoutMs, signal);
    } catch (error) {
      if (signal?.aborted) {
        return {
          status: 'ERROR',
          text: '[the tool was interrupted: the run was stopped]',
          request,
          response: { error: errorMessage(error) },
          interrupted: true,
        };
      }
      const failure = callFailure(server, error);
      const rpcCode = error instanceof McpRequestError ? error.rpcCode : undefined;
      const response = { error: { message: errorMessage(error), ...(rpcCode === undefined ? {} : { code: rpcCode }) } };
      if (!failure.restart) return { status: 'ERROR', text: `Error: ${failure.text}`, request, response, interrupted: false };
      const after = await this.restart(server);
      return { status: 'ERROR', text: `Error: ${failure.text}. ${after}`, request, response, interrupted: false };
    }
    // Recorded as response.json and in the journal: JSON that deep would overflow the stack writing it.
    if (valueNestsDeeperThan(result, MAX_JSON_DEPTH)) {
      const text = `the MCP server ${server.name} answered ${tool.toolName} with JSON nested more than ${MAX_JSON_DEPTH} levels deep, more than the engine reads; the answer was discarded`;
      return { status: 'ERROR', text: `Error: ${text}`, request, response: { error: text }, interrupted: false };
    }
    return {
      status: result.isError === true ? 'FAILED' : 'SUCCESS',
      text: callResultText(result),
      request,
      response: result,
      interrupted: false,
    };
  }

  /** Undefined when the server can take a call (restarted first if it stopped since the last one); otherwise why not. */
  private async readyOrWhyNot(server: RunningServer): Promise<string | undefined> {
    if (server.connection !== undefined && !server.connection.isClosed) return undefined;
    if (server.restarted)
      return `the MCP server ${server.name} stopped and was already restarted once in this run; its tools are unavailable${server.whereToLook}`;
    const ending = server.connection?.ending;
    const after = await this.restart(server);
    if (server.connection === undefined) return `the MCP server ${server.name} had stopped${ending ? ` (${ending})` : ''}. ${after}`;
    return undefined;
  }

  /** Restarts a server once in a run; says what came of it, for the model. */
  private async restart(server: RunningServer): Promise<string> {
    await server.stop();
    if (server.restarted)
      return `It was already restarted once in this run, so it is not started again; its tools are unavailable${server.whereToLook}.`;
    server.restarted = true;
    this.options.log?.(`restarting the MCP server ${server.name}`);
    try {
      await server.start();
      return 'It was restarted: call the tool again if you still need it.';
    } catch (error) {
      await server.stop();
      return `It could not be restarted (${errorMessage(error)})${server.whereToLook}.`;
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.servers.map((server) => server.stop()));
  }
}

/** Starts every server (together), lists their tools, and checks their names against each other. */
export async function startServers(options: StartMcpServersOptions): Promise<McpServers> {
  const servers: RunningServer[] = [];
  try {
    for (const entry of options.servers) servers.push(new RunningServer(entry, await endpointOf(entry, options)));
    const listed = await Promise.all(
      servers.map(async (server) => {
        try {
          return await server.start();
        } catch (error) {
          const { file, field } = server.entry;
          throw new SystemError(
            `The MCP server ${server.name} (${file} ${field}) could not be started: ${errorMessage(error)}${server.whereToLook}`,
            {
              code: 'MCP_SERVER_FAILED',
              file,
              field,
              hint:
                server.endpoint.kind === 'stdio'
                  ? 'Run its command by hand to see why (an MCP stdio server waits for JSON-RPC on stdin); check command:, args: and cwd:.'
                  : 'Check that the server is running at url: and speaks Streamable HTTP.',
              cause: error,
            },
          );
        }
      }),
    );
    const tools = servers.flatMap((server, index) => offeredTools(server, listed[index]!, options.log ?? (() => undefined)));
    return new RunningServers(servers, tools, options);
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    throw error;
  }
}
