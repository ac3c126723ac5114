import { runPaths, type JournalEvent } from '@delta/journal';
import { createRunOutput, type OutputFlags, type RunOutput } from './progress/run-output.js';
import { abortOnSignals } from './signals.js';
import { engineEnvironment } from './handed-keys.js';
import { subAgentEnvironment } from './sub-agent-environment.js';
import { TerminalAsker } from './terminal-asker.js';

/**
 * What `delta run` and `delta continue` pass to the engine: signals, progress (-q, --json, the terminal
 * display), -i, sub-agent PATH. `body` calls `endProgress` before it reports the outcome, so that progress
 * held back (up to PROGRESS_BATCH_MS) is not written after "Agent paused" and the other last lines.
 */
export async function withEngineSession<T>(
  interactive: boolean,
  body: (
    options: {
      signal: AbortSignal;
      toolEnv: Record<string, string>;
      /** This process's environment plus the model keys bin/delta handed over (see handed-keys.ts). */
      environment: NodeJS.ProcessEnv;
      onLog: (line: string) => void;
      onEvent?: (event: JournalEvent) => void;
      askHuman?: TerminalAsker['ask'];
    },
    endProgress: () => void,
  ) => Promise<T>,
  outputFlags: OutputFlags & { verbose?: boolean } = {},
): Promise<T> {
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text));
  const asker = interactive ? new TerminalAsker() : undefined;
  const output = createRunOutput(outputFlags);
  const onEvent = withJournalPath(output.onEvent, outputFlags.verbose === true);
  try {
    return await body(
      {
        signal: controller.signal,
        toolEnv: subAgentEnvironment(),
        environment: engineEnvironment(),
        onLog: output.onLog,
        ...(onEvent ? { onEvent } : {}),
        // Progress held back is written before a question, so that the question comes last.
        ...(asker
          ? {
              askHuman: (...args: Parameters<TerminalAsker['ask']>) => {
                output.flush();
                return asker.ask(...args);
              },
            }
          : {}),
      },
      output.stop,
    );
  } finally {
    output.stop();
    asker?.close();
    release();
  }
}

/** Under -v, the journal's path as the run starts (spec 003 section 10.2), so it can be followed at once. */
function withJournalPath(onEvent: RunOutput['onEvent'], verbose: boolean): RunOutput['onEvent'] {
  if (!verbose) return onEvent;
  return (event) => {
    if (event.type === 'ENGINE_START') process.stderr.write(`Journal log: ${runPaths(event.work_dir, event.run_id).journal}\n`);
    onEvent?.(event);
  };
}
