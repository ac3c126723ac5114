import type { CAC } from 'cac';

/** Registers the commands over a batch: batch, worker, grade, report (each loads its module when used). */
export function registerBatchCommands(cli: CAC): void {
  cli
    .command(
      'batch [tasks]',
      'Run an agent over a dataset (a JSONL file, or a directory of Harbor task directories): each task x model x repeat is one run in OUT/<task>/<model>/<k>/, resumable',
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
    .option(
      '--image <ref>',
      "Run every task's tools in this OCI image, unless its task names one (a layout DIR[:TAG], an archive, HOST[:PORT]/NAME:TAG)",
    )
    .option(
      '--image-map <file>',
      'For a directory of Harbor tasks: a YAML or JSON file from a task name, or sha256:<hex of its environment/Dockerfile>, to its image (over docker_image)',
    )
    .option(
      '--max-task-workspace <bounds>',
      "Raise what a task's workspace: directory may hold, e.g. allocated=4G,size=64G,entries=500000 (default: 1G on disk, 8G of file sizes, 100000 entries)",
    )
    .option(
      '--oracle',
      "Instead of the model, run each task's solution (solution/solve.sh) in its image, then its verifier, in OUT/<task>/oracle/1/; lists the tasks whose oracle fails and exits 1 if any does",
    )
    .option('--retry-failed', 'Run FAILED runs, and runs ended at their time or layer limit, again (by default they are left as they are)')
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
    .example('delta batch terminal-bench/tasks --agent ./my-agent --out results --image-map images.yaml')
    .example(
      "delta batch terminal-bench/tasks --agent ./my-agent --out results --image-map images.yaml --grader 'bash /tests/test.sh' --oracle",
    )
    .example('delta batch tasks.jsonl --agent ./my-agent --out /shared/results --queue "redis://:$REDIS_PASSWORD@10.0.0.5:6379/0" --wait')
    .action(async (tasks: string | undefined, flags) => (await import('./batch-command.js')).batchCommand(tasks, flags));

  cli
    .command('worker', 'Take runs of queued batches (delta batch --queue) and execute them, until stopped; run one per machine')
    .option('--queue <url>', 'The Redis the batches were queued in (redis://:PASSWORD@HOST:PORT/DB)')
    .option('--root <dir>', 'Serve only batches under this directory, the shared storage (repeatable; required)')
    .option('--concurrency <n>', 'Runs at a time in this process, per batch (default: 1)')
    .option('--base-url <url>', 'The model endpoint of every run (instead of DELTA_BASE_URL or .env)')
    .option(
      '--lock-duration <seconds>',
      'How long a run stays with a worker that stopped answering (killed, its machine lost) before another takes it (default: 30)',
    )
    .option('-v, --verbose', 'Show stack traces')
    .example('delta worker --queue "redis://:$REDIS_PASSWORD@10.0.0.5:6379/0" --root /shared/results --concurrency 4')
    .action(async (flags) => (await import('./worker-command.js')).workerCommand(flags));

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
    .action(async (out: string | undefined, flags) => (await import('./grade-command.js')).gradeCommand(out, flags));

  cli
    .command(
      'report [...outs]',
      'Compare the runs of a batch: per model and task, the model x task matrix, paired tests between models; or two batches',
    )
    .option('--json', 'The whole report as JSON, every run included')
    .option('--csv [table]', 'CSV: one row per model, task, matrix cell (and --by group); --csv comparisons: the paired comparisons')
    .option(
      '--grader <hash|command>',
      "Show the grades of this grader (its hash, a prefix of it, or its command; default: the batch's own, else the latest)",
    )
    .option('--by <field>', 'Also group the runs by a task metadata field, e.g. --by metadata.difficulty')
    .example('delta report results --csv > results.csv')
    .example('delta report results-before results-after')
    .action(async (outs: string[], flags) => (await import('./report-command.js')).reportCommand(outs, flags));
}
