import { cac } from 'cac';
import packageJson from '../package.json' with { type: 'json' };
import { cacMessageAsTyped, optionAsTyped, optionValuesAsTyped } from './option-as-typed.js';
import { handleClosedOutput, keepRunningWhenOutputCloses } from './closed-output.js';
import { reportError } from './report-error.js';
import { usageError } from './usage-error.js';
import { takeHandedKeys } from './handed-keys.js';
import { closeInheritedDescriptors } from './inherited-descriptors.js';
import { failIfEndedUnfinished } from './unfinished-exit.js';
import { registerBatchCommands } from './batch/batch-commands.js';
import { registerInspectCommands } from './inspect/inspect-commands.js';
import { registerReplayCommands, registerRunCommands } from './run-commands.js';

// First of all, before anything starts a process: the keys bin/delta handed over, and their descriptor
// closed; then every other descriptor inherited open across exec, which every tool would inherit in turn.
takeHandedKeys();
closeInheritedDescriptors();

// `delta log | head -1` ends quietly; a run goes on whatever happens to its output (see closed-output.ts).
handleClosedOutput();

const cli = cac('delta');

// In the order `delta --help` lists them.
registerRunCommands(cli);
registerBatchCommands(cli);
registerReplayCommands(cli);

cli
  .command('tool <action> [agent]', 'tool expand [agent]: print the tools of an agent in their expanded form (what really runs)')
  .option('--schema', 'Print the function definitions the model receives instead')
  .option('--json', 'Print JSON instead of YAML')
  .option('--strict', 'Every configuration warning is an error (exit 2)')
  .example('delta tool expand examples/hello-world/agent.yaml')
  .action(async (action: string, agent: string | undefined, flags) => {
    if (action !== 'expand')
      throw usageError(`unknown tool action "${action}".`, 'the tool command has one action: delta tool expand [agent]');
    return (await import('./tool-expand-command.js')).toolExpandCommand(agent, flags);
  });

cli
  .command('init [dir]', 'Create an agent (agent.yaml, system_prompt.md, context.yaml) from a template')
  .option('-t, --template <name>', 'minimal, hello-world, file-ops or api-tester (asked on a terminal otherwise)')
  .option('-y, --yes', 'Never ask: use the minimal template')
  .example('delta init my-agent -t hello-world')
  .action(async (dir: string | undefined, flags) => (await import('./init-command.js')).initCommand(dir, flags));

registerInspectCommands(cli);

cli
  .command('images [action]', 'The cache of unpacked OCI images: list it (sizes, last use, runs using each), or prune what no run uses')
  .option('--unused-for <duration>', 'prune: only roots not used for this long, e.g. 7d (default: every root no run uses now)')
  .example('delta images')
  .example('delta images prune --unused-for 7d')
  .action(async (action: string | undefined, flags) => (await import('./images-command.js')).imagesCommand(action, flags));

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
