// The SWE-bench-shaped example's image, built by its build-image.sh (Debian packages, no daemon) once per
// content of the example's repo/ and script: kept in this machine's temporary directory, so a rerun is fast.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPOSITORY_ROOT } from './run-delta.js';

export const EXAMPLE = join(REPOSITORY_ROOT, 'examples', 'swe-bench-shaped');

const missingTools = ['apt-get', 'dpkg-deb', 'umoci', 'busybox'].filter(
  (tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0,
);
/** Why the example's test skips (loudly), or undefined: what CI could not install, or what this machine lacks. */
export const swebenchSkip =
  process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE ??
  process.env.DELTA_TEST_IMAGE_TOOLS_UNAVAILABLE ??
  process.env.DELTA_TEST_DEBIAN_PACKAGES_UNAVAILABLE ??
  (missingTools.length > 0 ? `not installed: ${missingTools.join(', ')} (apt-get install umoci busybox-static)` : undefined);
if (swebenchSkip) {
  console.warn(`\n!!!!!!!!\n!!! SKIPPING the SWE-bench-shaped example (an image built from Debian packages): ${swebenchSkip}.\n!!!!!!!!\n`);
}

function filesOf(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/** The sha256 of what the image is built from: build-image.sh and every file of repo/, by path and content. */
function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of [join(EXAMPLE, 'build-image.sh'), ...filesOf(join(EXAMPLE, 'repo')).sort()]) {
    hash.update(`${relative(EXAMPLE, file)}\0${statSync(file).size}\0`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The image's layout (`DIR`, tag `textkit`) and a cache of unpacked images beside it, built when missing.
 * Built into a fresh directory and renamed into place, so two test processes never see half a layout.
 */
export function swebenchImage(): { layout: string; imageCache: string } {
  const home = join(tmpdir(), `delta-example-swe-bench-shaped-${sourceHash()}`);
  const layout = join(home, 'layout');
  const imageCache = join(home, 'unpacked');
  if (!existsSync(join(layout, 'index.json'))) {
    mkdirSync(home, { recursive: true });
    const building = join(home, `layout-${process.pid}`);
    rmSync(building, { recursive: true, force: true });
    const built = spawnSync('sh', [join(EXAMPLE, 'build-image.sh'), building], { encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`build-image.sh failed (${built.status}):\n${built.stdout}\n${built.stderr}`);
    try {
      renameSync(building, layout);
    } catch (error) {
      // Another process put its layout there first: the same content, keep it.
      if (!existsSync(join(layout, 'index.json'))) throw error;
      rmSync(building, { recursive: true, force: true });
    }
  }
  return { layout, imageCache };
}
