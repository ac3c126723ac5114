import { replayObject, replayText } from '@delta/views';
import { withEngineSession } from './engine-session.js';
import { ignorePatterns } from './replay-flags.js';
import { parseRunIdFlag } from './run-id-flag.js';
import { usageError } from './usage-error.js';
import type { RunLocation } from './inspect/locate-run.js';

export interface ReplayFlags extends RunLocation {
  agent?: string;
  into?: string;
  tools?: string;
  json?: boolean;
  quiet?: boolean;
  ignore?: string | readonly string[];
  keepGoing?: boolean;
}

function parseTools(value: string | undefined): 'live' | 'recorded' {
  if (value === undefined || value === 'live' || value === 'recorded') return value ?? 'live';
  throw usageError(
    `--tools must be live or recorded, got "${value}".`,
    'live runs the tools again; recorded serves their recorded results.',
  );
}

/** `delta replay`: re-executes a recorded run and says whether it is identical, or where it first diverged. */
export async function replayCommand(flags: ReplayFlags): Promise<number> {
  const tools = parseTools(flags.tools === undefined ? undefined : String(flags.tools));
  const runId = flags.runId === undefined ? undefined : parseRunIdFlag(flags.runId);
  const ignore = ignorePatterns(flags.ignore);
  const engine = await import('@delta/engine');
  const source = engine.openRecordedRun(flags.workDir ?? '.', runId);
  // A batch run: the agent version it used (kept by the batch), and without --into its task's start state, under OUT.
  const batch = (await import('@delta/experiments')).batchRunOrigin(source.paths.workDir);
  const result = await withEngineSession(
    false,
    (session) =>
      engine.replayRun({
        source,
        tools,
        ignore,
        keepGoing: flags.keepGoing === true,
        ...(flags.agent === undefined ? {} : { agentHome: String(flags.agent) }),
        signal: session.signal,
        toolEnv: session.toolEnv,
        onLog: session.onLog,
        ...(flags.into === undefined ? {} : { into: String(flags.into) }),
        ...(batch ? { agentVersions: batch.agentVersions } : {}),
        ...(batch && flags.into === undefined ? { originBase: batch.originBase, prepareWorkspace: batch.prepareWorkspace } : {}),
      }),
    { quiet: flags.quiet === true || flags.json === true },
  );
  const options = { into: flags.into !== undefined, keepGoing: flags.keepGoing === true, ignored: ignore.length > 0 };
  process.stdout.write(flags.json === true ? `${JSON.stringify(replayObject(result))}\n` : replayText(result, options, engine));
  return result.identical ? 0 : 1;
}
