// What the mcp_servers e2e test files share: the two real servers (from npm, and one of our own that can be
// killed in the middle of a call), and finding that server's processes on this machine.
import { expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { JournalEvent } from '@delta/journal';

const require = createRequire(import.meta.url);
export const FILESYSTEM_SERVER = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js');
export const HANG_SERVER = join(import.meta.dirname, '../../mcp/test/hang-server.mjs');

export function results(events: JournalEvent[]) {
  return events.filter((event) => event.type === 'ACTION_RESULT');
}

/**
 * The node processes of this machine running the hang server with `tag` among their arguments, by the pids
 * this machine knows them by (a sandboxed server has another inside its PID namespace).
 */
export function serverProcesses(tag: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[0] === process.execPath && argv[1] === HANG_SERVER && argv.includes(tag);
      } catch {
        return false;
      }
    })
    .map(Number);
}

export async function waitFor(check: () => boolean): Promise<void> {
  await expect.poll(check, { timeout: 60_000, interval: 20 }).toBe(true);
}
