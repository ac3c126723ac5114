import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './processes.mjs';

/**
 * Where the bench's agents and workspaces live: `bench/.work/`, inside the project as a real agent's
 * `workspaces/` is, rather than the system temp directory (on some machines, such as this project's
 * sandboxes, creating a file in /tmp costs 20 times what it costs elsewhere on the same disk, which would
 * measure the sandbox rather than the engine). Both costs are printed, so the choice stays visible.
 */
export function useProjectWorkDir() {
  const dir = join(root, 'bench', '.work');
  mkdirSync(dir, { recursive: true });
  const systemTemp = tmpdir();
  process.env.TMPDIR = dir;
  return {
    dir,
    fileCreateMs: { project: fileCreateMs(dir), systemTemp: fileCreateMs(systemTemp) },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The median cost of creating a directory with two small files, per file-system call. */
function fileCreateMs(base) {
  const dir = mkdtempSync(join(base, 'delta-bench-fs-'));
  try {
    const started = performance.now();
    for (let index = 0; index < 200; index += 1) {
      const sub = join(dir, `d${index}`);
      mkdirSync(sub);
      writeFileSync(join(sub, 'a.txt'), 'a');
      writeFileSync(join(sub, 'b.txt'), 'b');
    }
    return (performance.now() - started) / 600;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
