import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { benchEngineRun } from './engine-run.mjs';

export const GIBIBYTE = 1024 ** 3;

/** A two-iteration run whose one tool call prints 1 GiB: the engine's peak RSS, and whether stdout.log holds it all. */
export async function benchBigOutput() {
  const result = await benchEngineRun({
    iterations: 2,
    tool: { shell: `yes 'Delta Engine streams every byte of this line to stdout.log.' | head -c ${GIBIBYTE}` },
  });
  const log = join(result.runDir, 'io', 'tool_executions', 'call_1', 'stdout.log');
  const size = statSync(log).size;
  rmSync(result.work, { recursive: true, force: true });
  return { maxRssKiB: result.maxRssKiB, launcherRssKiB: result.launcherRssKiB, wallMs: result.wallMs, logBytes: size };
}
