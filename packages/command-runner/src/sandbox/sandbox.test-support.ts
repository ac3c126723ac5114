// What the sandbox tests share: real bubblewrap (or a loud skip), and waiting on this machine's processes.
import { expect } from 'vitest';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap, type SandboxPolicy } from '../index.js';

/**
 * bubblewrap's path, or that these tests skip: .ci/run installs it, and only a machine where that install
 * failed may skip them, loudly, naming `what`.
 */
export function bubblewrapForTests(what: string): { path: string | undefined; skip: boolean } {
  const probe = probeBubblewrap();
  const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
  if (!probe.ok && unavailable) {
    console.warn(`\n!!!!!!!!\n!!! SKIPPING ${what}: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`);
  }
  return { path: probe.ok ? probe.path : undefined, skip: !probe.ok && unavailable !== undefined };
}

/** Processes of this machine whose command line is exactly `argv`. */
export function processesRunning(argv: string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8') === wanted;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits for `condition`, polling every 20 ms, and fails naming `what` after 30 s. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  await expect.poll(condition, { timeout: 30_000, interval: 20, message: what }).toBe(true);
}

/** A workspace-write policy, network off, for `workspace` (made here, with its `.delta/`, protected). */
export function workspacePolicy(workspace: string): SandboxPolicy {
  mkdirSync(join(workspace, '.delta'), { recursive: true });
  return {
    mode: 'workspace-write',
    network: false,
    workspace,
    protectedPaths: [join(workspace, '.delta')],
    visiblePaths: [],
    writablePaths: [],
  };
}
