import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deltaBin, deltaLauncher, root, sessionsBin } from './processes.mjs';

function tsup(cwd, outDir) {
  const result = spawnSync('pnpm', ['exec', 'tsup', '--silent', '--out-dir', outDir], { cwd, stdio: ['ignore', 'ignore', 'inherit'] });
  if (result.status !== 0) throw new Error(`tsup failed in ${cwd}`);
}

/**
 * Builds delta and delta-sessions from the current sources into a private directory under each app's
 * node_modules (so that their packages resolve, and a parallel `pnpm build` cleaning dist/ cannot pull
 * them away mid-bench), with a bin file like the published one. @delta/journal and the testkit, which the
 * bench itself imports, are built when their dist/ is missing or (journal) always, for the new exports.
 */
export function buildForBench(progress) {
  progress('building delta, delta-sessions and @delta/journal from the sources (tsup)...');
  for (const [app, bin] of [
    ['apps/delta-cli', deltaBin],
    ['apps/delta-sessions', sessionsBin],
  ]) {
    const outDir = join(root, app, 'node_modules/.delta-bench');
    mkdirSync(outDir, { recursive: true });
    tsup(join(root, app), outDir);
    writeFileSync(bin, "#!/usr/bin/env node\nimport './cli.js';\n");
  }
  copyFileSync(join(root, 'apps/delta-cli/bin/delta'), deltaLauncher);
  chmodSync(deltaLauncher, 0o755);
  tsup(join(root, 'packages/journal'), 'dist');
  if (!existsSync(join(root, 'packages/testkit/dist/index.js'))) tsup(join(root, 'packages/testkit'), 'dist');
}
