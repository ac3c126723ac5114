import { join, resolve } from 'node:path';
import { chooseWorkspace, resumeNote } from '@delta/views';
import { usageError } from './usage-error.js';
import { printConfigWarning } from './config-warnings.js';
import { engineEnvironment } from './handed-keys.js';
import { runModelOf, runOverrides } from './run-models.js';
import { withEngineSession } from './engine-session.js';
import { reportOutcome } from './report-outcome.js';
import { parseRunFlags, type RunFlags } from './run-flags.js';
import { runIdTaken } from './run-id-flag.js';

/** `delta run`'s flags: those it shares with `delta continue`, and its own. */
interface RunCommandFlags extends RunFlags {
  agent?: string;
  yes?: boolean;
  /** Start a new run even when the latest one could be resumed. */
  new?: boolean;
}

/**
 * A `-w DIR` outside the agent's workspaces/ is listed in its OTHER_WORKSPACES, for `delta list --agent`.
 * An agent directory that cannot be written (read-only, say) does not stop the run: a note says what is lost.
 */
function noteOtherWorkspace(agentHome: string, workDir: string, record: (agentHome: string, workDir: string) => void): void {
  try {
    record(agentHome, workDir);
  } catch (error) {
    process.stderr.write(
      `note: ${workDir} could not be listed in ${join(agentHome, 'workspaces', 'OTHER_WORKSPACES')} (${error instanceof Error ? error.message : String(error)}); \`delta list --agent\` will not show its runs (\`delta list -w ${workDir}\` will).\n`,
    );
  }
}

/** `delta run`: load the agent, pick the workspace, start (or auto-resume) the run, print the answer. */
export async function runCommand(flags: RunCommandFlags): Promise<number> {
  if (flags.message === undefined || String(flags.message).trim() === '') {
    throw usageError(
      'delta run needs a task: -m/--message is missing.',
      'For example: delta run --agent ./my-agent -m "Summarise README.md"',
    );
  }
  const { format, runId, engine: flagOptions } = parseRunFlags(flags);
  const engine = await import('@delta/engine');
  const { recordOtherWorkspace } = await import('@delta/journal');
  // --models: the entry --model names, its key read now (before a workspace is made), laid over agent.yaml.
  const model = await runModelOf(flags, engineEnvironment());
  const loaded = engine.loadAgent(flags.agent ?? '.', { strict: flags.strict === true, overrides: runOverrides(flags) });
  const agent = model ? model.apply(loaded) : loaded;
  for (const warning of agent.warnings) printConfigWarning(warning);
  const message = String(flags.message);
  const workDir =
    flags.workDir === undefined
      ? await chooseWorkspace(agent.home, flags.yes === true, { input: process.stdin, output: process.stderr })
      : resolve(flags.workDir);
  if (flags.workDir !== undefined) noteOtherWorkspace(agent.home, workDir, recordOtherWorkspace);

  // Smart resume (spec 2.6.1): the workspace's latest run is interrupted, paused or crashed. Not with
  // --run-id or --new: the caller asked for a new run (another run may be going on beside it).
  const resume = runId === undefined && flags.new !== true ? engine.resumableRun(workDir) : undefined;
  if (flags.verbose === true) {
    // What the run will use: --base-url, the models file entry's key, a resumed run's recorded endpoint.
    const given = { ...flagOptions, ...model?.engine, ...(resume ? { recorded: resume.metadata.model_endpoint } : {}) };
    (await import('./report-settings.js')).reportSettings(agent, workDir, (text) => process.stderr.write(text), given);
  }

  return withEngineSession(
    flags.interactive === true,
    async (session, endProgress) => {
      const common = { ...session, ...flagOptions, ...model?.engine };
      let result;
      if (resume) {
        const { runId: latest, metadata, answerFromFile } = resume;
        process.stderr.write(resumeNote({ runId: latest, status: metadata.status, workDir }, answerFromFile));
        result = await engine.continueRun({ ...common, agent, workDir, runId: latest, ...(answerFromFile ? {} : { message }) });
      } else {
        try {
          result = await engine.startRun({ ...common, agent, message, workDir, ...(runId === undefined ? {} : { runId }) });
        } catch (error) {
          throw runId === undefined ? error : runIdTaken(error, runId, workDir);
        }
      }
      endProgress();
      return reportOutcome(result, flags.verbose === true, { json: flags.json === true, format });
    },
    flags,
  );
}
