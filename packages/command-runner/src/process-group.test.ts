import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processStartTicks } from '@delta/process-identity';
import { stopProcessGroupIfSame } from './index.js';

describe('stopProcessGroupIfSame', () => {
  it('stops a process group only when pid and start time both match', async () => {
    const child = spawn('sh', ['-c', 'sleep 30 & sleep 30'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const ticks = processStartTicks(pid);
    expect(ticks).toMatch(/^\d+$/);
    // Another start time means another process behind a reused pid: left alone.
    expect(await stopProcessGroupIfSame(pid, String(Number(ticks) + 1))).toBe(false);
    expect(processStartTicks(pid)).toBe(ticks);
    expect(await stopProcessGroupIfSame(pid, ticks!)).toBe(true);
    await exited;
    expect(await stopProcessGroupIfSame(pid, ticks!)).toBe(false);
  });
});
