import { cac } from 'cac';
import packageJson from '../package.json' with { type: 'json' };
import { reportError } from './report-error.js';

const cli = cac('delta');

cli
  .command('run', 'Start a run of an agent (or resume an interrupted one)')
  .option('--agent <dir>', 'The agent directory (holds agent.yaml)', { default: '.' })
  .option('-m, --message <text>', 'The task for the agent')
  .option('-w, --work-dir <dir>', 'The workspace (default: a new <agent>/workspaces/W00N)')
  .option('--max-iterations <n>', 'Model calls before the run stops as INTERRUPTED (default: agent.yaml max_iterations, or 30)')
  .option('-y, --yes', 'Never ask: create a new workspace when -w is not given')
  .option('-i, --interactive', 'Answer ask_human at this terminal instead of pausing the run')
  .option('-v, --verbose', 'Show stack traces and where settings came from')
  .example('delta run --agent examples/hello-world -m "Greet the world" -y')
  .action(async (flags) => (await import('./run-command.js')).runCommand(flags));

cli
  .command('continue', 'Continue a run: resume it, answer its question, or give it a new message')
  .option('-w, --work-dir <dir>', 'The workspace that holds the run')
  .option('-m, --message <text>', 'A new message, or the answer when the run waits for input')
  .option('--run-id <id>', 'The run to continue (default: the latest, in .delta/LATEST)')
  .option('--max-iterations <n>', 'Model calls before the run stops again as INTERRUPTED')
  .option('-i, --interactive', 'Answer ask_human at this terminal instead of pausing the run')
  .option('-v, --verbose', 'Show stack traces')
  .example('delta continue -w examples/hello-world/workspaces/W001 -m "Now greet Mars too"')
  .action(async (flags) => (await import('./continue-command.js')).continueCommand(flags));

cli
  .command('tool <action> [agent]', 'tool expand [agent]: print the tools of an agent in their expanded form (what really runs)')
  .option('--schema', 'Print the function definitions the model receives instead')
  .option('--json', 'Print JSON instead of YAML')
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

cli.help();
cli.version(packageJson.version, '--version');

async function main(): Promise<number> {
  const verbose = process.argv.includes('-v') || process.argv.includes('--verbose');
  try {
    cli.parse(process.argv, { run: false });
    if (cli.options.help || cli.options.version) return 0;
    if (!cli.matchedCommand) {
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
      process.stderr.write(`Error: ${error.message}\nHint: see \`delta ${cli.matchedCommandName ?? ''} --help\`.\n`);
      return 2;
    }
    return reportError(error, verbose, (text) => process.stderr.write(text));
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`delta: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
