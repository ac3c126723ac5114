import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';
import { type FakeLlm, type RecordedRequest, startFakeLlm } from './fake-llm.js';
import { appendFileSync } from 'node:fs';
import { loadScript } from './load-script.js';
import { scriptFromRun } from './script-from-run.js';
import { ScriptFileError } from './parse-script.js';
import { SERVER_PROFILES } from './server-profiles.js';

export const helpText = `delta-fake-llm: a scripted OpenAI-compatible chat-completions server, for running agents with no API key.

Usage:
  delta-fake-llm --script steps.yaml [--port N]         serve until Ctrl-C; prints DELTA_BASE_URL=... once listening
  delta-fake-llm --script steps.yaml -- <command> ...   run <command> with DELTA_BASE_URL and DELTA_API_KEY set,
                                                        then stop and exit with the command's exit code
  delta-fake-llm --from-run WS/.delta/RUN_ID ...        answer as that recorded run's model did, in order

Options:
  -s, --script FILE   YAML or JSON: a list of steps, or {steps: [...]}. Each step is one model answer:
                        - content: "Hello"
                        - tool_calls: [{name: read_file, arguments: {path: a.txt}}]
                        - tool_calls: [{name: read_file, raw_arguments: "{not json"}]
                        - error: {status: 429, message: "slow down"}
                        - delay_ms: 500 (combinable with the others)
                        - when: {model: gpt-4o, last_message: "notes.txt"} (answer only a request that matches:
                          each gets the first unused step that does; without when:, steps answer in order)
                      or one script per model: {models: {gpt-4o: [steps], gpt-4o-mini: [steps]}}
      --from-run DIR  instead of --script: a recorded run's directory (<workspace>/.delta/<run_id>); its
                      model's answers (text, tool calls with their ids, tokens) are the steps
      --log FILE      append every request received to FILE, one JSON line each: method, path, status, body
  -p, --port N        port to listen on (default: a free one)
      --host HOST     address to listen on (default: 127.0.0.1)
      --api-key KEY   answer 401 unless requests send this key (with a command: the key it is given)
      --profile NAME  answer the way this server does: ${SERVER_PROFILES.map((profile) => profile.name).join(', ')}
                      (default: openai)
  -h, --help          show this help

Example:
  delta-fake-llm --script examples/hello-world/fake-llm.yaml -- npx delta run --agent examples/hello-world -m "Hi"
`;

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
  /** Aborted on SIGINT or SIGTERM, with the signal's name as the reason. */
  signal?: AbortSignal;
}

class UsageError extends Error {}

function parse(argv: string[]) {
  const separator = argv.indexOf('--');
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const command = separator === -1 ? [] : argv.slice(separator + 1);
  let parsed;
  try {
    parsed = parseArgs({
      args: own,
      strict: true,
      allowPositionals: false,
      options: {
        script: { type: 'string', short: 's' },
        'from-run': { type: 'string' },
        log: { type: 'string' },
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        'api-key': { type: 'string' },
        profile: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.help) return { help: true as const };
  if (values.script === undefined && values['from-run'] === undefined) {
    throw new UsageError('missing --script FILE (a YAML or JSON list of steps) or --from-run RUN_DIR');
  }
  if (values.script !== undefined && values['from-run'] !== undefined) throw new UsageError('give --script or --from-run, not both');
  if (separator !== -1 && command.length === 0) throw new UsageError("nothing to run after '--'");
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535, got '${values.port}'`);
  }
  const profile = values.profile ?? 'openai';
  if (!SERVER_PROFILES.some((known) => known.name === profile)) {
    throw new UsageError(`unknown --profile '${profile}' (known: ${SERVER_PROFILES.map((known) => known.name).join(', ')})`);
  }
  return {
    help: false as const,
    script: values.script,
    fromRun: values['from-run'],
    log: values.log,
    port,
    host: values.host,
    apiKey: values['api-key'],
    profile,
    command,
  };
}

/** The delta-fake-llm command, in-process: returns the exit code instead of exiting. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let options;
  try {
    options = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`delta-fake-llm: ${error.message}\nRun 'delta-fake-llm --help' for usage.\n`);
    return 2;
  }
  if (options.help) {
    io.stdout.write(helpText);
    return 0;
  }
  let script;
  try {
    script = options.script === undefined ? scriptFromRun(options.fromRun!) : loadScript(options.script);
  } catch (error) {
    if (!(error instanceof ScriptFileError)) throw error;
    io.stderr.write(`delta-fake-llm: invalid script: ${error.message}\n`);
    return 2;
  }
  const [command, ...args] = options.command;
  // An empty DELTA_API_KEY (exported but blank) counts as none: the command gets a key it can send.
  const apiKey = command === undefined ? options.apiKey : (options.apiKey ?? (io.env.DELTA_API_KEY || 'fake-key'));
  const llm = await startFakeLlm({
    script,
    port: options.port,
    profile: options.profile,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(options.log === undefined ? {} : { onAnswered: logTo(options.log) }),
  });
  try {
    if (command === undefined) return await serve(llm, script.length, io);
    return await runCommand(command, args, { ...io.env, DELTA_BASE_URL: llm.baseUrl, DELTA_API_KEY: apiKey }, io);
  } finally {
    await llm.close();
  }
}

/** `--log FILE`: each request, once answered, as one JSON line (written at once, so a killed server loses none). */
function logTo(file: string): (request: RecordedRequest) => void {
  return (request) => {
    appendFileSync(
      file,
      `${JSON.stringify({ method: request.method, path: request.path, status: request.status, body: request.rawBody })}\n`,
    );
  };
}

async function serve(llm: FakeLlm, steps: number, io: CliIo): Promise<number> {
  io.stdout.write(`DELTA_BASE_URL=${llm.baseUrl}\n`);
  io.stderr.write(`delta-fake-llm: serving ${steps} scripted step(s); stop with Ctrl-C\n`);
  const { signal } = io;
  if (signal?.aborted) return 0;
  await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  return 0;
}

function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv, io: CliIo): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    // A terminal's Ctrl-C already reaches the child (same process group), so only SIGTERM is passed on.
    const forward = () => {
      if (io.signal?.reason === 'SIGTERM') child.kill('SIGTERM');
    };
    io.signal?.addEventListener('abort', forward, { once: true });
    child.once('error', (error: NodeJS.ErrnoException) => {
      io.signal?.removeEventListener('abort', forward);
      const reason = error.code === 'ENOENT' ? 'command not found' : error.message;
      io.stderr.write(`delta-fake-llm: cannot run '${command}': ${reason}\n`);
      resolve(127);
    });
    child.once('exit', (code, signal) => {
      io.signal?.removeEventListener('abort', forward);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}
