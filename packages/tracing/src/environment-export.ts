import type { JournalEvent } from '@delta/journal';
import { createLiveExport } from './live-export.js';

/** A live export as a run's command holds it: its close never throws, it warns. */
export interface EnvironmentExport {
  onEvent: (event: JournalEvent) => void;
  /** Sends what is left; spans not sent are a warning, and do not change the run's outcome. */
  close: () => Promise<void>;
}

/**
 * The live export OTEL_EXPORTER_OTLP_ENDPOINT asks for (docs/tracing.md), or undefined when it is unset: message
 * content only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; the end of the run waits for the
 * collector 2 s, or OTEL_EXPORTER_OTLP_TIMEOUT (milliseconds) when set. `warn` is given the warning when the
 * spans could not be sent.
 */
export function liveExportFromEnvironment(environment: NodeJS.ProcessEnv, warn: (text: string) => void): EnvironmentExport | undefined {
  const endpoint = environment.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined || endpoint.trim() === '') return undefined;
  const content = environment.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.toLowerCase() === 'true';
  const configured = Number(environment.OTEL_EXPORTER_OTLP_TIMEOUT);
  const closeWaitMs = Number.isFinite(configured) && configured > 0 ? configured : 2000;
  const live = createLiveExport({ endpoint, content, closeWaitMs }, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  return {
    onEvent: live.onEvent,
    close: async () => {
      try {
        await live.close();
      } catch (error) {
        warn(
          `warning: tracing: ${error instanceof Error ? error.message : String(error)} The run is recorded; \`delta export otel\` sends it again.\n`,
        );
      }
    },
  };
}
