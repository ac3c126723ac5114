import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './processes.mjs';

/**
 * Where the bench's agents and workspaces live: `bench/.work/<this bench>/`, inside the project as a
 * real agent's `workspaces/` is, rather than the system temp directory, where test runs keep creating
 * and deleting files. Both costs of creating a file are printed, so the choice stays visible.
 *
 * Nothing is deleted while measuring, and a bench's runs are kept until a bench more than half an hour
 * later deletes them, once it has measured: on ext4 without a journal (as on this project's machines),
 * creating a file first steps over every inode deleted in the last minute or more (several minutes
 * while their inode table is not yet written back), so deleting the tens of thousands of files of a
 * bench would slow every run for minutes after it, the next bench's included.
 */
export async function useProjectWorkDir(progress = () => {}) {
  const base = join(root, 'bench', '.work');
  const dir = join(base, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  const systemTemp = tmpdir();
  process.env.TMPDIR = dir;
  // Just after a mass deletion (an earlier clean-up, a test run) files are slow to create for minutes:
  // wait for that to pass (two quick probes in a row), so that it is not measured as the engine's cost.
  let waited = 0;
  for (let quick = 0; quick < 2 && waited < MAX_SETTLE_WAIT_MS; ) {
    if (fileCreateMs(dir).ms <= SETTLED_CREATE_MS) {
      quick += 1;
      continue;
    }
    quick = 0;
    if (waited === 0)
      progress(`creating files is slow just now (recent deletions?): waiting up to ${MAX_SETTLE_WAIT_MS / 1000} s for it to settle...`);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    waited += 5000;
  }
  const project = fileCreateMs(dir);
  const temp = fileCreateMs(systemTemp);
  return {
    dir,
    settleWaitMs: waited,
    fileCreateMs: { project: project.ms, systemTemp: temp.ms },
    /** One create now, to print beside the one at the start. */
    fileCreateMsNow: () => fileCreateMs(dir).ms,
    /**
     * Deletes the runs of benches older than half an hour (this one's, and any recent one's, stay, so
     * that a bench soon after does not measure their deletion), and the probe in the system temp dir.
     */
    cleanup: () => {
      rmSync(temp.dir, { recursive: true, force: true });
      for (const entry of readdirSync(base)) {
        const path = join(base, entry);
        if (path !== dir && Date.now() - statSync(path).mtimeMs > KEEP_EARLIER_MS) rmSync(path, { recursive: true, force: true });
      }
    },
  };
}

/** A file costs less than this to create on a quiet file system here (about 0.04 ms is usual). */
const SETTLED_CREATE_MS = 0.08;
/** Earlier benches' runs younger than this are kept (see cleanup). */
const KEEP_EARLIER_MS = 30 * 60_000;
const MAX_SETTLE_WAIT_MS = 180_000;

/**
 * The mean cost of creating a directory with two small files, per file-system call, and the directory
 * they are left in until the end: see above.
 */
function fileCreateMs(base) {
  const dir = mkdtempSync(join(base, 'delta-bench-fs-'));
  const started = performance.now();
  for (let index = 0; index < 200; index += 1) {
    const sub = join(dir, `d${index}`);
    mkdirSync(sub);
    writeFileSync(join(sub, 'a.txt'), 'a');
    writeFileSync(join(sub, 'b.txt'), 'b');
  }
  return { ms: (performance.now() - started) / 600, dir };
}
