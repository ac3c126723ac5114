import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's chromium; .ci/run installs it. Only a machine where that install failed may skip, loudly. */
function findChromium(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim().split('\n')[0] : undefined;
}

export const chromium = findChromium();
/** Why .ci/run could not install chromium, when it could not: the only case in which a browser test may skip. */
export const chromiumUnavailable = process.env.DELTA_TEST_CHROMIUM_UNAVAILABLE;

/** Says loudly that `what` is skipped, when it is. */
export function warnIfChromiumSkipped(what: string): void {
  if (!chromium && chromiumUnavailable) {
    console.warn(`\n!!!!!!!!\n!!! SKIPPING ${what}: chromium could not be installed (${chromiumUnavailable}).\n!!!!!!!!\n`);
  }
}

/** Headless Chromium with a fresh profile and no background network (see the machine notes). */
export function runChromium(args: string[]): string {
  const profile = mkdtempSync(join(tmpdir(), 'delta-chromium-'));
  try {
    return execFileSync(
      chromium!,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
        ...args,
      ],
      { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
