import type { CAC } from 'cac';

/** Registers the commands that read recorded runs: list, log, show, view, export (each loads its module when used). */
export function registerInspectCommands(cli: CAC): void {
  cli
    .command('list', 'List runs, latest first: status, iterations, tokens, cost, start, duration and task, with totals (alias: list-runs)')
    .alias('list-runs')
    .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
    .option('--agent <dir>', 'List the runs of every workspace of this agent, those given with delta run -w too')
    .option(
      '--status <statuses>',
      'Only runs of these statuses, separated by commas (completed, failed, interrupted, waiting_for_input, running)',
    )
    .option('--first', 'Only the latest run')
    .option(
      '--kind <kinds>',
      'run, replay, fork (separated by commas) or all; with --agent, replays and forks (kept in <agent>/replays and <agent>/forks) are listed only when asked',
    )
    .option('--format <format>', 'text (a table), json (one JSON object per run) or raw (run ids, one per line)')
    .option('--json', 'One JSON object per run (the same as --format json)')
    .example('delta list --agent examples/hello-world')
    .example('delta list --agent my-agent --status failed,interrupted')
    .example('delta list --agent my-agent --kind replay,fork')
    .example('RUN=$(delta list-runs --first --format raw)   # in a workspace: the latest run id')
    .action(async (flags) => (await import('../list-command.js')).listCommand(flags));

  cli
    .command('log', "Print a run's journal as a readable transcript")
    .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
    .option('--run-id <id>', 'The run (default: the latest)')
    .option('-f, --follow', 'Keep printing a live run until it ends (or Ctrl-C)')
    .option('--raw', 'Print the journal lines (JSONL) as they are')
    .example('delta log -w examples/hello-world/workspaces/W001 -f')
    .action(async (flags) => (await import('../log-command.js')).logCommand(flags));

  cli
    .command(
      'show <kind> [id]',
      "show run: status, tokens (cached, reasoning), cost, retries, origin and the effective configuration; show invocation N|ID: the exact model request and response; show action ID|N: a tool's command line, stdout and stderr",
    )
    .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
    .option('--run-id <id>', 'The run (default: the latest)')
    .option('--request', 'invocation: print only the request bytes')
    .option('--response', 'invocation: print only the response')
    .option('--stdout', "action: print only the tool's stdout")
    .option('--stderr', "action: print only the tool's stderr")
    .option('-v, --verbose', "run: also list the agent's files and their sha256 (its fingerprint)")
    .example('delta show invocation 1 -w ws --request | jq .messages')
    .action(async (kind: string, id: string | undefined, flags) => (await import('../show-command.js')).showCommand(kind, id, flags));

  cli
    .command('view [dir]', 'Write a run (or, given a batch directory, a batch) as one self-contained HTML page')
    .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
    .option('--run-id <id>', 'The run (default: the latest)')
    .option('-o, --output <file>', 'Where to write the page (default: <run>/view.html; for a batch OUT/index.html)')
    .option('--stdout', 'Print the page on stdout instead')
    .option(
      '--grader <hash|command>',
      "A batch's page: show this grader's scores (its hash, a prefix of it, or its command; default: the batch's own)",
    )
    .example('delta view -w examples/hello-world/workspaces/W001 -o run.html')
    .example('delta view results   # a batch: results/index.html, a sortable table of its runs, each linked to its page')
    .action(async (dir: string | undefined, flags) => (await import('../view-command.js')).viewCommand(dir, flags));

  cli
    .command(
      'export <format>',
      'Send a recorded run to a tracing backend: export otel sends OpenTelemetry spans over OTLP/HTTP (docs/tracing.md)',
    )
    .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
    .option('--run-id <id>', 'The run (default: the latest)')
    .option('--endpoint <url>', 'The collector, e.g. http://localhost:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)')
    .option('--header <key=value>', 'A header for the collector, repeatable (an API key, say)')
    .option('--content', 'Also export message content: the answers, tool arguments and results (off by default)')
    .option('--service-name <name>', 'service.name of the spans (default: delta)')
    .example('delta export otel -w my-agent/workspaces/W001 --endpoint http://localhost:4318')
    .action(async (format: string, flags) => (await import('../export-command.js')).exportCommand(format, flags));
}
