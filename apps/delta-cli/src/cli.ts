import { cac } from 'cac';
import packageJson from '../package.json' with { type: 'json' };
import { cacMessageAsTyped, optionAsTyped, optionValuesAsTyped } from './option-as-typed.js';
import { handleClosedOutput, keepRunningWhenOutputCloses } from './closed-output.js';
import { reportError } from './report-error.js';
import { takeHandedKeys } from './handed-keys.js';
import { closeInheritedDescriptors } from './inherited-descriptors.js';
import { failIfEndedUnfinished } from './unfinished-exit.js';

// First of all, before anything starts a process: the keys bin/delta handed over, and their descriptor
// closed; then every other descriptor inherited open across exec, which every tool would inherit in turn.
takeHandedKeys();
closeInheritedDescriptors();

// `delta log | head -1` ends quietly; a run goes on whatever happens to its output (see closed-output.ts).
handleClosedOutput();

const cli = cac('delta');

cli
  .command('run', 'Start a run of an agent (or resume an interrupted one)')
  .option('--agent <dir>', 'The agent directory (holds agent.yaml)', { default: '.' })
  .option('-m, --message <text>', 'The task for the agent')
  .option('-w, --work-dir <dir>', 'The workspace (default: a new <agent>/workspaces/W00N)')
  .option('--run-id <id>', 'Name the new run (letters, digits, ".", "_", "-"; not already used in the workspace)')
  .option('--new', "Start a new run even when the workspace's latest run is interrupted or paused (default: resume it)")
  .option(
    '--max-iterations <n>',
    'Model calls in this invocation before the run stops as INTERRUPTED; a resumed run gets a fresh budget (default: agent.yaml max_iterations, or 30)',
  )
  .option('--retries <n>', 'Retries of a model request that failed transiently (default: agent.yaml llm.max_retries, or 2)')
  .option('--model <name>', 'Use this model for the run instead of agent.yaml llm.model (with --models: the name of an entry)')
  .option(
    '--models <file>',
    'A models file (docs/experiments.md): the entry --model names gives the model, endpoint, key variable, prices and parameters',
  )
  .option('--base-url <url>', 'The model endpoint (instead of DELTA_BASE_URL or .env)')
  .option(
    '--set <key=value>',
    'Override a field of agent.yaml for the run: a dotted path and a YAML value (repeatable), e.g. --set llm.temperature=0',
  )
  .option(
    '--max-cost <amount>',
    'Stop the run as INTERRUPTED (exit 3, resumable) once this invocation has spent this much (needs llm.pricing)',
  )
  .option('--timeout <duration>', 'Stop the run as INTERRUPTED (exit 3, resumable) after this much wall-clock time: 90s, 10m, 1h')
  .option('-y, --yes', 'Never ask: create a new workspace when -w is not given')
  .option('-i, --interactive', 'Answer ask_human at this terminal instead of pausing the run')
  .option('-q, --quiet', 'No progress output, only the answer and errors')
  .option('--format <format>', 'What stdout gets when the run stops: text (the answer), json (one result object), raw (the answer only)')
  .option('--json', 'Print every journal event as one JSON line on stdout as it happens, then the outcome')
  .option('--strict', 'Every configuration warning is an error (exit 2)')
  .option('--sandbox <mode>', "Confine the tools: workspace-write (the default), read-only or off (over agent.yaml's sandbox.mode)")
  .option('--no-network', 'Tools get no network (in the sandbox)')
  .option('-v, --verbose', 'Show stack traces and where settings came from')
  .example('delta run --agent examples/hello-world -m "Greet the world" -y')
  .example('delta run --agent examples/hello-world -w ws --run-id greet-1 -m "Greet the world" --format json | jq .final_answer')
  .example('delta run --agent examples/hello-world -m "Greet the world" -y --model gpt-4o-mini --set llm.temperature=0')
  .example('delta run --agent examples/hello-world -m "Greet the world" -y --models models.yaml --model small')
  .action(async (flags) => (await import('./run-command.js')).runCommand(flags));

cli
  .command('continue', 'Continue a run: resume it, answer its question, or give it a new message')
  .option('-w, --work-dir <dir>', 'The workspace that holds the run')
  .option('-m, --message <text>', 'A new message, or the answer when the run waits for input')
  .option('--run-id <id>', 'The run to continue (default: the latest, in .delta/LATEST)')
  .option(
    '--max-iterations <n>',
    'Model calls in this invocation before the run stops again as INTERRUPTED (a fresh budget, not the run total)',
  )
  .option('--retries <n>', 'Retries of a model request that failed transiently (default: agent.yaml llm.max_retries, or 2)')
  .option('--model <name>', 'Use this model for the run instead of agent.yaml llm.model (with --models: the name of an entry)')
  .option('--models <file>', 'A models file: go on with the entry --model names (its model, endpoint, key variable, prices, parameters)')
  .option('--base-url <url>', 'The model endpoint (instead of DELTA_BASE_URL or .env)')
  .option(
    '--set <key=value>',
    'Override a field of agent.yaml for the run: a dotted path and a YAML value (repeatable), e.g. --set llm.temperature=0',
  )
  .option(
    '--max-cost <amount>',
    'Stop the run as INTERRUPTED (exit 3, resumable) once this invocation has spent this much (needs llm.pricing)',
  )
  .option('--timeout <duration>', 'Stop the run as INTERRUPTED (exit 3, resumable) after this much wall-clock time: 90s, 10m, 1h')
  .option('-i, --interactive', 'Answer ask_human at this terminal instead of pausing the run')
  .option('-q, --quiet', 'No progress output, only the answer and errors')
  .option('--format <format>', 'What stdout gets when the run stops: text (the answer), json (one result object), raw (the answer only)')
  .option('--json', 'Print every journal event as one JSON line on stdout as it happens, then the outcome')
  .option('--strict', 'Every configuration warning is an error (exit 2)')
  .option('--sandbox <mode>', "Confine the tools: workspace-write (the default), read-only or off (over agent.yaml's sandbox.mode)")
  .option('--no-network', 'Tools get no network (in the sandbox)')
  .option('-v, --verbose', 'Show stack traces')
  .example('delta continue -w examples/hello-world/workspaces/W001 -m "Now greet Mars too"')
  .action(async (flags) => (await import('./continue-command.js')).continueCommand(flags));

cli
  .command(
    'batch [tasks]',
    'Run an agent over a dataset (JSONL): each task x model x repeat is one run in OUT/<task>/<model>/<k>/, resumable',
  )
  .option('--agent <dir>', 'The agent directory (holds agent.yaml)', { default: '.' })
  .option('--out <dir>', 'The batch directory (required); the same command again resumes the batch in it')
  .option('--concurrency <n>', 'Runs at a time, in this one process (default: 4)')
  .option('--model <names>', "Models to compare, comma-separated or repeated, over agent.yaml llm.model (default: agent.yaml's)")
  .option(
    '--models <file>',
    'A models file (docs/experiments.md): each entry a model with its own endpoint, key variable, prices and parameters (--model picks some)',
  )
  .option('--repeat <k>', 'Runs of each task per model (default: 1)')
  .option('--set <key=value>', 'Override a field of agent.yaml for every run, e.g. --set llm.temperature=0 (repeatable)')
  .option('--base-url <url>', 'The model endpoint of every run (instead of DELTA_BASE_URL or .env)')
  .option(
    '--grader <command>',
    'Scores each completed run: a command (run with sh in the workspace) that prints {"score": N} or exits 0/1, or builtin:exact|includes|regex|numeric[:TOL]|json-subset',
  )
  .option('--retry-failed', 'Run FAILED runs again (by default they are left as they are)')
  .option(
    '--max-attempts <n>',
    'Attempts of a run in all when its endpoint still fails after --retries: each resends the request after 5 s, 10 s, ... (default: 1), locally and through --queue',
  )
  .option(
    '--condition <name>',
    "Run the agent as it is now as this condition (version) of the batch, its runs in OUT/<task>/<model>+NAME/<k>; needed once the agent's files changed",
  )
  .option('--max-iterations <n>', 'Model calls per run in this invocation before it stops as INTERRUPTED')
  .option('--retries <n>', 'Retries of a model request that failed transiently (default: agent.yaml llm.max_retries, or 2)')
  .option('--max-cost <amount>', 'Stop each run as INTERRUPTED (exit 3, resumable) once it has spent this much (needs llm.pricing)')
  .option('--timeout <duration>', 'Stop each run as INTERRUPTED (exit 3, resumable) after this much wall-clock time: 90s, 10m, 1h')
  .option('--json', 'Print one JSON event per line (batch_start, run_start, run_end, batch_end) on stdout')
  .option(
    '--queue <url>',
    'Enqueue the runs in a BullMQ queue on this Redis (redis://:PASSWORD@HOST:PORT/DB) for delta worker, instead of running them',
  )
  .option('--wait', 'With --queue: follow the queue until every run has ended, then sum up')
  .option('--strict', 'Every configuration warning is an error (exit 2)')
  .option('-v, --verbose', 'Show stack traces')
  .example('delta batch tasks.jsonl --agent ./my-agent --out results --concurrency 8 --model gpt-4o,gpt-4o-mini --repeat 3')
  .example('delta batch tasks.jsonl --agent ./my-agent --out results --models models.yaml --repeat 3')
  .example('delta batch tasks.jsonl --agent ./my-agent --out /shared/results --queue "redis://:$REDIS_PASSWORD@10.0.0.5:6379/0" --wait')
  .action(async (tasks: string | undefined, flags) => (await import('./batch/batch-command.js')).batchCommand(tasks, flags));

cli
  .command('worker', 'Take runs of queued batches (delta batch --queue) and execute them, until stopped; run one per machine')
  .option('--queue <url>', 'The Redis the batches were queued in (redis://:PASSWORD@HOST:PORT/DB)')
  .option('--concurrency <n>', 'Runs at a time in this process, per batch (default: 1)')
  .option('--base-url <url>', 'The model endpoint of every run (instead of DELTA_BASE_URL or .env)')
  .option(
    '--lock-duration <seconds>',
    'How long a run stays with a worker that stopped answering (killed, its machine lost) before another takes it (default: 30)',
  )
  .option('-v, --verbose', 'Show stack traces')
  .example('delta worker --queue "redis://:$REDIS_PASSWORD@10.0.0.5:6379/0" --concurrency 4')
  .action(async (flags) => (await import('./batch/worker-command.js')).workerCommand(flags));

cli
  .command(
    'grade [out]',
    'Score every completed run of a batch with a grader, without re-running anything (adds grades/<hash>.json; others are kept)',
  )
  .option(
    '--grader <command>',
    'A command that scores a run (sh, in its workspace; prints {"score": N} or exits 0/1) or builtin:exact|includes|regex|numeric[:TOL]|json-subset (default: the batch\'s own)',
  )
  .option('--concurrency <n>', 'Graders at a time (default: 4)')
  .option('--json', 'One JSON object per graded run')
  .example('delta grade results --grader "python3 grade.py"')
  .action(async (out: string | undefined, flags) => (await import('./batch/grade-command.js')).gradeCommand(out, flags));

cli
  .command(
    'report [...outs]',
    'Compare the runs of a batch: per model and task, the model x task matrix, paired tests between models; or two batches',
  )
  .option('--json', 'The whole report as JSON, every run included')
  .option('--csv [table]', 'CSV: one row per model, task, matrix cell (and --by group); --csv comparisons: the paired comparisons')
  .option('--grader <hash|command>', 'Show the grades of this grader (its hash, a prefix of it, or its command; default: the latest)')
  .option('--by <field>', 'Also group the runs by a task metadata field, e.g. --by metadata.difficulty')
  .example('delta report results --csv > results.csv')
  .example('delta report results-before results-after')
  .action(async (outs: string[], flags) => (await import('./batch/report-command.js')).reportCommand(outs, flags));

cli
  .command('replay', 'Re-execute a recorded run: recorded model answers, checked requests; says "identical" or where it first diverged')
  .option('-w, --work-dir <dir>', 'The workspace of the recorded run (default: the current directory)')
  .option('--run-id <id>', 'The run to replay (default: the latest)')
  .option(
    '--into <dir>',
    "The replay's workspace, prepared by you (default: a new <agent>/replays/R00N; a batch run's task start state is restored there)",
  )
  .option('--tools <mode>', 'live (default): run the tools again; recorded: serve their recorded results, run nothing')
  .option('--agent <dir>', 'The agent directory (default: the one the run recorded; give it for a copied or cloned recording)')
  .option('--json', 'Print one JSON object with the result')
  .option('-q, --quiet', 'No progress output')
  .example('delta replay -w examples/hello-world/recorded --agent examples/hello-world')
  .example('delta replay -w ws --tools recorded --json | jq .divergence')
  .action(async (flags) => (await import('./replay-command.js')).replayCommand(flags));

cli
  .command('fork', 'Branch a recorded run after iteration N: workspace rebuilt by replay, then the run goes on live')
  .option('-w, --work-dir <dir>', 'The workspace of the recorded run (default: the current directory)')
  .option('--run-id <id>', 'The run to fork (default: the latest)')
  .option('--at <n>', 'Keep iterations 1..N of the run (0: only the task)')
  .option('--agent <dir>', 'The agent directory (default: the one the run recorded)')
  .option(
    '--into <dir>',
    "The fork's workspace, prepared by you (default: a new <agent>/forks/F00N; a batch run's task start state is restored there)",
  )
  .option('-m, --message <text>', "A new message before the model's next turn")
  .option('--model <name>', 'Go on with this model instead of agent.yaml llm.model')
  .option('--base-url <url>', 'The model endpoint (instead of DELTA_BASE_URL or .env)')
  .option('--set <key=value>', 'Override a field of agent.yaml for the live part (repeatable)')
  .option('--max-iterations <n>', 'Model calls of the live part before the run stops as INTERRUPTED')
  .option('-i, --interactive', 'Answer ask_human at this terminal instead of pausing the run')
  .option('-q, --quiet', 'No progress output, only the answer and errors')
  .option('--format <format>', 'What stdout gets when the run stops: text, json or raw')
  .option('--json', 'Print every journal event as one JSON line on stdout as it happens, then the outcome')
  .option('-v, --verbose', 'Show stack traces')
  .example('delta fork -w ws --at 2 -m "Try it another way" --model gpt-4o')
  .action(async (flags) => (await import('./fork-command.js')).forkCommand(flags));

cli
  .command(
    'diff <runA> <runB>',
    'Compare two runs iteration by iteration (a run is <workspace>/.delta/<run_id>, or a workspace for its latest run)',
  )
  .option('--json', 'Print one JSON object with every difference')
  .example('delta diff ws1 ws2/.delta/20261122_143522_a1b2c3')
  .action(async (runA: string, runB: string, flags) => (await import('./diff-command.js')).diffCommand(String(runA), String(runB), flags));

cli
  .command('tool <action> [agent]', 'tool expand [agent]: print the tools of an agent in their expanded form (what really runs)')
  .option('--schema', 'Print the function definitions the model receives instead')
  .option('--json', 'Print JSON instead of YAML')
  .option('--strict', 'Every configuration warning is an error (exit 2)')
  .example('delta tool expand examples/hello-world/agent.yaml')
  .action(async (action: string, agent: string | undefined, flags) => {
    if (action !== 'expand') {
      process.stderr.write(`Error: unknown tool action "${action}".\nHint: the tool command has one action: delta tool expand [agent]\n`);
      return 2;
    }
    return (await import('./tool-expand-command.js')).toolExpandCommand(agent, flags);
  });

cli
  .command('init [dir]', 'Create an agent (agent.yaml, system_prompt.md, context.yaml) from a template')
  .option('-t, --template <name>', 'minimal, hello-world, file-ops or api-tester (asked on a terminal otherwise)')
  .option('-y, --yes', 'Never ask: use the minimal template')
  .example('delta init my-agent -t hello-world')
  .action(async (dir: string | undefined, flags) => (await import('./init-command.js')).initCommand(dir, flags));

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
  .action(async (flags) => (await import('./list-command.js')).listCommand(flags));

cli
  .command('log', "Print a run's journal as a readable transcript")
  .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
  .option('--run-id <id>', 'The run (default: the latest)')
  .option('-f, --follow', 'Keep printing a live run until it ends (or Ctrl-C)')
  .option('--raw', 'Print the journal lines (JSONL) as they are')
  .example('delta log -w examples/hello-world/workspaces/W001 -f')
  .action(async (flags) => (await import('./log-command.js')).logCommand(flags));

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
  .action(async (kind: string, id: string | undefined, flags) => (await import('./show-command.js')).showCommand(kind, id, flags));

cli
  .command('view [dir]', 'Write a run (or, given a batch directory, a batch) as one self-contained HTML page')
  .option('-w, --work-dir <dir>', 'The workspace (default: the current directory)')
  .option('--run-id <id>', 'The run (default: the latest)')
  .option('-o, --output <file>', 'Where to write the page (default: <run>/view.html; for a batch OUT/index.html)')
  .option('--stdout', 'Print the page on stdout instead')
  .example('delta view -w examples/hello-world/workspaces/W001 -o run.html')
  .example('delta view results   # a batch: results/index.html, a sortable table of its runs, each linked to its page')
  .action(async (dir: string | undefined, flags) => (await import('./view-command.js')).viewCommand(dir, flags));

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
  .action(async (format: string, flags) => (await import('./export-command.js')).exportCommand(format, flags));

cli.help();
cli.version(packageJson.version, '--version');

async function main(): Promise<number> {
  const verbose = process.argv.includes('-v') || process.argv.includes('--verbose');
  try {
    cli.parse(process.argv, { run: false });
    if (cli.options.help || cli.options.version) return 0;
    if (cli.matchedCommand) Object.assign(cli.options, optionValuesAsTyped(cli.matchedCommand.options, process.argv.slice(2), cli.options));
    if (['run', 'continue', 'batch', 'worker', 'replay', 'fork'].includes(cli.matchedCommandName ?? '')) keepRunningWhenOutputCloses();
    if (!cli.matchedCommand) {
      // cac checks options against a command's only: `delta --bogus` would print the help and exit 0.
      const unknown = Object.keys(cli.options).find((key) => key !== '--');
      if (unknown !== undefined) {
        process.stderr.write(`Error: Unknown option \`${optionAsTyped(unknown, process.argv.slice(2))}\`\nHint: see \`delta --help\`.\n`);
        return 2;
      }
      if (cli.args.length > 0) {
        process.stderr.write(`Error: unknown command "${cli.args[0]}".\nHint: see \`delta --help\` for the commands.\n`);
        return 2;
      }
      cli.outputHelp();
      return 0;
    }
    const code = await cli.runMatchedCommand();
    return typeof code === 'number' ? code : 0;
  } catch (error) {
    if (error instanceof Error && error.name === 'CACError') {
      const message = cacMessageAsTyped(error.message, process.argv.slice(2));
      process.stderr.write(`Error: ${message}\nHint: see \`delta ${cli.matchedCommandName ?? ''} --help\`.\n`);
      return 2;
    }
    return reportError(error, verbose, (text) => process.stderr.write(text));
  }
}

// Never a silent exit 0 with the command cut short (see unfinished-exit.ts).
const finished = failIfEndedUnfinished(
  () => cli.matchedCommandName,
  (text) => process.stderr.write(text),
);
main().then(
  (code) => {
    finished();
    process.exitCode = code;
  },
  (error: unknown) => {
    finished();
    process.stderr.write(`delta: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
