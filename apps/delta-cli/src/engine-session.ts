import type { JournalEvent } from '@delta/journal';
import type { ModelDelta } from '@delta/engine';
import type { EnvironmentExport } from '@delta/tracing';
import { createRunOutput, type OutputFlags, TerminalAsker } from '@delta/views';
import { abortOnSignals } from './signals.js';
import { engineEnvironment } from './handed-keys.js';
import { subAgentEnvironment } from './sub-agent-environment.js';
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
  outputFlags: OutputFlags = {},
): Promise<T> {
  // First: a missing OpenTelemetry package ends the command here, before signals and the terminal are taken.
  const tracing = await liveTracing();
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text));
  const asker = interactive ? new TerminalAsker({ input: process.stdin, output: process.stderr }) : undefined;
  const output = createRunOutput(outputFlags, { stdout: process.stdout, stderr: process.stderr, environment: process.env });
  // Progress lines still held back when the process ends are written on its way out.
  process.once('exit', output.flush);
  const listeners = [tracing?.onEvent, output.onEvent].filter((listener) => listener !== undefined);
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
    await tracing?.close();
  }
}

/**
 * With OTEL_EXPORTER_OTLP_ENDPOINT set, the run's spans go to that collector as the run goes (docs/tracing.md):
 * @delta/tracing and the OpenTelemetry SDK are loaded only then.
 */
async function liveTracing(): Promise<EnvironmentExport | undefined> {
  if ((process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim() === '') return undefined;
  const { liveExportFromEnvironment } = await loadOptional(
    'OTEL_EXPORTER_OTLP_ENDPOINT is set: sending the spans live',
    OPENTELEMETRY,
    () => import('@delta/tracing'),
    { otherwise: 'unset OTEL_EXPORTER_OTLP_ENDPOINT to run without sending spans' },
  );
  return liveExportFromEnvironment(process.env, (text) => process.stderr.write(text));
}
