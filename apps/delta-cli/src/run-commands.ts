import type { CAC, Command } from 'cac';

/** The options of run and continue from --max-iterations on, in the order both list them; `own`: the wording each has of its own. */
function runOptions(command: Command, own: { maxIterations: string; models: string; yes?: string; verbose: string }): Command {
  command
    .option('--max-iterations <n>', own.maxIterations)
    .option('--retries <n>', 'Retries of a model request that failed transiently (default: agent.yaml llm.max_retries, or 2)')
    .option('--model <name>', 'Use this model for the run instead of agent.yaml llm.model (with --models: the name of an entry)')
    .option('--models <file>', own.models)
    .option('--base-url <url>', 'The model endpoint (instead of DELTA_BASE_URL or .env)')
    .option(
      '--set <key=value>',
      'Override a field of agent.yaml for the run: a dotted path and a YAML value (repeatable), e.g. --set llm.temperature=0',
    )
    .option(
      '--max-cost <amount>',
      'Stop the run as INTERRUPTED (exit 3, resumable) once this invocation has spent this much (needs llm.pricing)',
    )
    .option('--timeout <duration>', 'Stop the run as INTERRUPTED (exit 3, resumable) after this much wall-clock time: 90s, 10m, 1h');
  if (own.yes !== undefined) command.option('-y, --yes', own.yes);
  return command
    .option('-i, --interactive', 'Answer ask_human at this terminal instead of pausing the run')
    .option('-q, --quiet', 'No progress output, only the answer and errors')
    .option('--format <format>', 'What stdout gets when the run stops: text (the answer), json (one result object), raw (the answer only)')
    .option('--json', 'Print every journal event as one JSON line on stdout as it happens, then the outcome')
    .option('--strict', 'Every configuration warning is an error (exit 2)')
    .option('--sandbox <mode>', "Confine the tools: workspace-write (the default), read-only or off (over agent.yaml's sandbox.mode)")
    .option('--no-network', 'Tools get no network (in the sandbox)')
    .option('-v, --verbose', own.verbose);
}

/** Registers the commands that run an agent from its task: run and continue (each loads its module when used). */
export function registerRunCommands(cli: CAC): void {
  const run = cli
    .command('run', 'Start a run of an agent (or resume an interrupted one)')
    .option('--agent <dir>', 'The agent directory (holds agent.yaml)', { default: '.' })
    .option('-m, --message <text>', 'The task for the agent')
    .option('-w, --work-dir <dir>', 'The workspace (default: a new <agent>/workspaces/W00N)')
    .option('--run-id <id>', 'Name the new run (letters, digits, ".", "_", "-"; not already used in the workspace)')
    .option('--new', "Start a new run even when the workspace's latest run is interrupted or paused (default: resume it)")
    .option(
      '--image <ref>',
      "Run the tools in this OCI image: a layout DIR[:TAG], an archive, or HOST[:PORT]/NAME:TAG (over agent.yaml's sandbox.image)",
    )
    .option('--workdir <dir>', "Where the workspace is inside the image (default: the image's WorkingDir, else /workspace)");
  runOptions(run, {
    maxIterations:
      'Model calls in this invocation before the run stops as INTERRUPTED; a resumed run gets a fresh budget (default: agent.yaml max_iterations, or 30)',
    models: 'A models file (docs/experiments.md): the entry --model names gives the model, endpoint, key variable, prices and parameters',
    yes: 'Never ask: create a new workspace when -w is not given',
    verbose: 'Show stack traces and where settings came from',
  })
    .example('delta run --agent examples/hello-world -m "Greet the world" -y')
    .example('delta run --agent examples/hello-world -w ws --run-id greet-1 -m "Greet the world" --format json | jq .final_answer')
    .example('delta run --agent examples/hello-world -m "Greet the world" -y --model gpt-4o-mini --set llm.temperature=0')
    .example('delta run --agent examples/hello-world -m "Greet the world" -y --models models.yaml --model small')
    .action(async (flags) => (await import('./run-command.js')).runCommand(flags));

  const resume = cli
    .command('continue', 'Continue a run: resume it, answer its question, or give it a new message')
    .option('-w, --work-dir <dir>', 'The workspace that holds the run')
    .option('-m, --message <text>', 'A new message, or the answer when the run waits for input')
    .option('--run-id <id>', 'The run to continue (default: the latest, in .delta/LATEST)');
  runOptions(resume, {
    maxIterations: 'Model calls in this invocation before the run stops again as INTERRUPTED (a fresh budget, not the run total)',
    models: 'A models file: go on with the entry --model names (its model, endpoint, key variable, prices, parameters)',
    verbose: 'Show stack traces',
  })
    .example('delta continue -w examples/hello-world/workspaces/W001 -m "Now greet Mars too"')
    .action(async (flags) => (await import('./continue-command.js')).continueCommand(flags));
}

/** Registers the commands over recorded runs that load the engine: replay and fork (which run an agent again), and diff. */
export function registerReplayCommands(cli: CAC): void {
  cli
    .command('replay', 'Re-execute a recorded run: recorded model answers, checked requests; says "identical" or where it first diverged')
    .option('-w, --work-dir <dir>', 'The workspace of the recorded run (default: the current directory)')
    .option('--run-id <id>', 'The run to replay (default: the latest)')
    .option(
      '--into <dir>',
      "The replay's workspace, prepared by you (default: a new <agent>/replays/R00N; for a batch run OUT/.batch/replays/R00N, its task start state restored)",
    )
    .option('--tools <mode>', 'live (default): run the tools again; recorded: serve their recorded results, run nothing')
    .option(
      '--ignore <regex>',
      'Volatile text (a timestamp, a temporary path) to leave out of the comparison of tool results and requests (repeatable)',
    )
    .option('--keep-going', 'Go on past a divergence and report every one, not only the first')
    .option(
      '--agent <dir>',
      "The agent directory, used as it is (default: the one the run recorded, or a batch's kept copy of the run's version when it was edited since)",
    )
    .option('--json', 'Print one JSON object with the result')
    .option('-q, --quiet', 'No progress output')
    .example('delta replay -w examples/hello-world/recorded --agent examples/hello-world')
    .example('delta replay -w ws --tools recorded --json | jq .divergence')
    .example("delta replay -w ws --ignore '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z' --ignore '/tmp/tmp\\.\\w+' --keep-going")
    .action(async (flags) => (await import('./replay-command.js')).replayCommand(flags));

  cli
    .command('fork', 'Branch a recorded run after iteration N: workspace rebuilt by replay, then the run goes on live')
    .option('-w, --work-dir <dir>', 'The workspace of the recorded run (default: the current directory)')
    .option('--run-id <id>', 'The run to fork (default: the latest)')
    .option('--at <n>', 'Keep iterations 1..N of the run (0: only the task)')
    .option('--agent <dir>', 'The agent directory (default: the one the run recorded)')
    .option(
      '--into <dir>',
      "The fork's workspace, prepared by you (default: a new <agent>/forks/F00N; for a batch run OUT/.batch/forks/F00N, its task start state restored)",
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
    .action(async (runA: string, runB: string, flags) =>
      (await import('./diff-command.js')).diffCommand(String(runA), String(runB), flags),
    );
}
