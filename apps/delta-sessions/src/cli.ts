import { cac } from 'cac';
import {
  DEFAULT_MAX_OUTPUT_BYTES,
  DEFAULT_TIMEOUT_MS,
  SessionError,
  cleanupSessions,
  endSession,
  execInSession,
  listSessions,
  startSession,
} from '@delta/sessions';
import { version } from '../package.json';
import { printError, printJson } from './print.js';
import { readStdin } from './read-stdin.js';

interface GlobalOptions {
  sessionsDir?: string;
  '--'?: string[];
}

interface ExecCommandOptions extends GlobalOptions {
  timeoutMs?: number | string;
  maxOutputBytes?: number | string;
}

const cli = cac('delta-sessions');

cli.option('--sessions-dir <dir>', 'Where sessions live (default: $DELTA_SESSIONS_DIR, else ./.sessions)');

cli
  .command('start [...command]', 'Start a session: bash (default), sh, python3, node, or another REPL; prints its id')
  .example('delta-sessions start')
  .example('delta-sessions start python3')
  .example('delta-sessions start -- python3 -q')
  .action(async (command: string[], options: GlobalOptions) => {
    const argv = [...command, ...(options['--'] ?? [])].map(String);
    printJson(await startSession({ command: argv, ...sessionsDir(options) }));
  });

cli
  // [id], not <id>: the id may come after -- (exec -- ID), as the argument-injection warning advises.
  .command('exec [id] [...command]', 'Run a command in a session; without one, it is read from stdin (pipes, heredocs)')
  .option('--timeout-ms <ms>', `Stop the command after this long (default: $DELTA_SESSIONS_TIMEOUT_MS, else ${DEFAULT_TIMEOUT_MS})`)
  .option(
    '--max-output-bytes <bytes>',
    `Cap on each of stdout and stderr (default: $DELTA_SESSIONS_MAX_OUTPUT_BYTES, else ${DEFAULT_MAX_OUTPUT_BYTES})`,
  )
  .example('delta-sessions exec sess_3f9a1c0b2d4e "ls -la"')
  .example("delta-sessions exec sess_3f9a1c0b2d4e <<'EOF'")
  .example('delta-sessions exec -- sess_3f9a1c0b2d4e "ls -la"')
  .action(async (given: string | undefined, command: string[], options: ExecCommandOptions) => {
    const [id, ...words] = idFirst('exec <id> [...command]', given, [...command, ...(options['--'] ?? [])]);
    const code = words.length > 0 ? words.join(' ') : await commandFromStdin();
    printJson(
      await execInSession(id, code, {
        ...sessionsDir(options),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: Number(options.timeoutMs) }),
        ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: Number(options.maxOutputBytes) }),
      }),
    );
  });

cli
  .command('end [id]', 'End a session and stop its processes')
  .example('delta-sessions end -- sess_3f9a1c0b2d4e')
  .action(async (given: string | undefined, options: GlobalOptions) => {
    const [id, ...extra] = idFirst('end <id>', given, options['--'] ?? []);
    if (extra.length > 0) throw usage(`end takes one session id; found also ${extra.join(' ')}.`);
    printJson(await endSession(id, sessionsDir(options)));
  });

cli
  .command('cleanup', 'End every session of this workspace not yet terminated, dead ones included (for an on_run_end hook)')
  .example('delta-sessions cleanup')
  .action(async (options: GlobalOptions) => {
    const results = await cleanupSessions(sessionsDir(options));
    // A session it would not touch is in the JSON and, for whoever reads the hook's log, on stderr.
    for (const result of results) {
      if (result.status === 'left_alone') process.stderr.write(`delta-sessions: left ${result.session_id} alone: ${result.reason}\n`);
    }
    printJson(results);
  });

cli.command('list', 'List sessions with their status: active, terminated or dead').action(async (options: GlobalOptions) => {
  printJson(await listSessions(sessionsDir(options)));
});

cli.help();
cli.version(version);

function sessionsDir(options: GlobalOptions): { sessionsDir?: string } {
  return options.sessionsDir === undefined ? {} : { sessionsDir: String(options.sessionsDir) };
}

/** The session id and the words after it: the id given before `--`, or else the first word after it. */
function idFirst(usageLine: string, given: string | undefined, rest: readonly unknown[]): [string, ...string[]] {
  const words = (given === undefined ? rest : [given, ...rest]).map(String);
  const [id, ...after] = words;
  if (id === undefined)
    throw usage(
      `missing required args for command \`${usageLine}\`: give the session id, as in ${usageLine.split(' ')[0]} sess_3f9a1c0b2d4e.`,
    );
  return [id, ...after];
}

function usage(message: string): SessionError {
  return new SessionError(message, { code: 'INVALID_ARGUMENT' });
}

async function commandFromStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new SessionError(
      'No command to run: give it as an argument (exec <id> "ls -la") or on stdin (echo "ls -la" | delta-sessions exec <id>).',
      {
        code: 'INVALID_ARGUMENT',
      },
    );
  }
  return readStdin();
}

async function main(): Promise<void> {
  try {
    cli.parse(process.argv, { run: false });
    if (cli.options.help || cli.options.version) return;
    if (!cli.matchedCommand) {
      if (cli.args.length === 0) {
        cli.outputHelp();
        return;
      }
      throw new SessionError(`Unknown command "${cli.args[0]}"; the commands are start, exec, end, cleanup and list (see --help).`, {
        code: 'INVALID_ARGUMENT',
      });
    }
    await cli.runMatchedCommand();
  } catch (error) {
    printError(error);
  }
}

await main();
