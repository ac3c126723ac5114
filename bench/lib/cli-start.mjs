import { deltaBin, timeInterleaved } from './processes.mjs';
import { median } from './stats.mjs';

/** Median wall times of `node -e 0`, `delta --version` and `delta --help`, interleaved so load affects all alike. */
export async function benchCliStart(rounds) {
  const [bare, version, help] = await timeInterleaved(
    [
      { file: process.execPath, args: ['-e', '0'] },
      { file: process.execPath, args: [deltaBin, '--version'] },
      { file: process.execPath, args: [deltaBin, '--help'] },
    ],
    rounds,
  );
  return { bare: median(bare), version: median(version), help: median(help) };
}
