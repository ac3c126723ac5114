import type { BatchSpec } from '@delta/experiments';
import { oracleLine, oracleSummaryText } from '@delta/views';
import { printConfigWarning } from '../config-warnings.js';
import { engineEnvironment } from '../handed-keys.js';
import { imageCacheOption } from '../sandbox-flags.js';
import { abortOnSignals } from '../signals.js';
import { subAgentEnvironment } from '../sub-agent-environment.js';

/** `delta batch DIR --agent A --out OUT --oracle`: each task's solution instead of the model, then its verifier. */
export async function oracleCommand(spec: BatchSpec, options: { concurrency: number; json: boolean }): Promise<number> {
  const { oracleExitCode, runOracle } = await import('@delta/experiments');
  const controller = new AbortController();
  const release = abortOnSignals(controller, (text) => process.stderr.write(text), 'the oracle');
  const print = (line: string) => process.stdout.write(line);
  try {
    const summary = await runOracle({
      ...spec,
      concurrency: options.concurrency,
      onWarning: printConfigWarning,
      environment: engineEnvironment(),
      toolEnv: subAgentEnvironment(),
      ...imageCacheOption(),
      signal: controller.signal,
      onVerdict: (verdict) =>
        print(options.json ? `${JSON.stringify({ type: 'oracle_task', ...verdict })}\n` : oracleLine(verdict, process.cwd())),
    });
    const { verdicts: _verdicts, ...counts } = summary;
    print(options.json ? `${JSON.stringify({ type: 'oracle_end', ...counts })}\n` : oracleSummaryText(summary, process.cwd()));
    return oracleExitCode(summary);
  } finally {
    release();
  }
}
