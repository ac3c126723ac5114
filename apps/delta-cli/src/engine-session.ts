import { abortOnSignals } from './signals.js';
import { subAgentEnvironment } from './sub-agent-environment.js';
import { TerminalAsker } from './terminal-asker.js';

/** What `delta run` and `delta continue` pass to the engine: signals, progress, -i, sub-agent PATH. */
export async function withEngineSession<T>(
  interactive: boolean,
  body: (options: {
    signal: AbortSignal;
    toolEnv: Record<string, string>;
    onLog: (line: string) => void;
    askHuman?: TerminalAsker['ask'];
  }) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text));
  const asker = interactive ? new TerminalAsker() : undefined;
  try {
    return await body({
      signal: controller.signal,
      toolEnv: subAgentEnvironment(),
      onLog: (line) => process.stderr.write(`${line}\n`),
      ...(asker ? { askHuman: asker.ask } : {}),
    });
  } finally {
    asker?.close();
    release();
  }
}
