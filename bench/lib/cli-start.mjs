import { deltaLauncher, timeInterleaved } from './processes.mjs';
import { median } from './stats.mjs';

/**
 * Median wall times of `node -e 0`, `delta --version` and `delta --help` (through the published sh launcher, as a
 * user runs it), interleaved so load affects all alike.
 */
export async function benchCliStart(rounds) {
  const [bare, version, help] = await timeInterleaved(
    [
      { file: process.execPath, args: ['-e', '0'] },
      { file: deltaLauncher, args: ['--version'] },
      { file: deltaLauncher, args: ['--help'] },
    ],
    rounds,
  );
  return { bare: median(bare), version: median(version), help: median(help) };
}
