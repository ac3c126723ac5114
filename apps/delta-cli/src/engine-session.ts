import { runPaths, type JournalEvent } from '@delta/journal';
import type { ModelDelta } from '@delta/engine';
import type { LiveExport } from '@delta/tracing';
import { createRunOutput, type OutputFlags } from '@delta/views';
import { abortOnSignals } from './signals.js';
import { engineEnvironment } from './handed-keys.js';
import { subAgentEnvironment } from './sub-agent-environment.js';
import { TerminalAsker } from './terminal-asker.js';
import { loadOptional, OPENTELEMETRY } from './optional-packages.js';

/**
 * What `delta run` and `delta continue` pass to the engine: signals, progress (-q, --json, the terminal
 * display), -i, sub-agent PATH. `body` calls `endProgress` before it reports the outcome, so that progress
 * held back (up to 50 ms) is not written after "Agent paused" and the other last lines.
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
      onModelDelta?: (delta: ModelDelta) => void;
      askHuman?: TerminalAsker['ask'];
    },
    endProgress: () => void,
  ) => Promise<T>,
  outputFlags: OutputFlags & { verbose?: boolean } = {},
): Promise<T> {
  // First: a missing OpenTelemetry package ends the command here, before signals and the terminal are taken.
  const tracing = await liveTracing();
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text));
  const asker = interactive ? new TerminalAsker() : undefined;
  const output = createRunOutput(outputFlags, { stdout: process.stdout, stderr: process.stderr, environment: process.env });
  // Progress lines still held back when the process ends are written on its way out.
  process.once('exit', output.flush);
  // Under -v, the journal's path as the run starts (spec 003 section 10.2), so that it can be followed at once.
  const listeners = [tracing?.onEvent, outputFlags.verbose === true ? printJournalPath : undefined, output.onEvent].filter(
    (listener) => listener !== undefined,
  );
  const onEvent =
    listeners.length === 0
      ? undefined
      : (event: JournalEvent) => {
          for (const listener of listeners) listener(event);
        };
  try {
    return await body(
      {
        signal: controller.signal,
        toolEnv: subAgentEnvironment(),
        environment: engineEnvironment(),
        onLog: output.onLog,
        ...(onEvent ? { onEvent } : {}),
        ...(output.onModelDelta ? { onModelDelta: output.onModelDelta } : {}),
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
    await closeTracing(tracing);
  }
}

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the run's spans go to that collector as the run goes
 * (docs/tracing.md); message content only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
 * @delta/tracing and the OpenTelemetry SDK are loaded only then.
 */
async function liveTracing(): Promise<LiveExport | undefined> {
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || endpoint.trim() === '') return undefined;
  const { createLiveExport } = await loadOptional(
    'OTEL_EXPORTER_OTLP_ENDPOINT is set: sending the spans live',
    OPENTELEMETRY,
    () => import('@delta/tracing'),
    {
      otherwise: 'unset OTEL_EXPORTER_OTLP_ENDPOINT to run without sending spans',
    },
  );
  const content = process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true';
  return createLiveExport({ endpoint, content, closeWaitMs: closeWaitMs() }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
}

/**
 * How long the end of a run waits for the collector to take the last spans: 2 s, or OTEL_EXPORTER_OTLP_TIMEOUT
 * when set. A collector that is down costs the run that at most, and one warning (docs/tracing.md).
 */
function closeWaitMs(): number {
  const configured = Number(process.env.OTEL_EXPORTER_OTLP_TIMEOUT);
  return Number.isFinite(configured) && configured > 0 ? configured : 2000;
}

/** Spans not sent do not change the run's outcome or exit code: a warning says so. */
async function closeTracing(tracing: LiveExport | undefined): Promise<void> {
  if (!tracing) return;
  try {
    await tracing.close();
  } catch (error) {
    process.stderr.write(
      `warning: tracing: ${error instanceof Error ? error.message : String(error)} The run is recorded; \`delta export otel\` sends it again.\n`,
    );
  }
}

function printJournalPath(event: JournalEvent): void {
  if (event.type === 'ENGINE_START') process.stderr.write(`Journal log: ${runPaths(event.work_dir, event.run_id).journal}\n`);
}
