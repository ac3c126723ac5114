import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatBytes, processTreeUsage } from './process-tree.js';

describe('processTreeUsage', () => {
  it('counts this process and every process below it, and their resident memory', async () => {
    const before = processTreeUsage()!;
    expect(before.processes).toBeGreaterThanOrEqual(1);
    expect(before.rssBytes).toBeGreaterThan(10e6);
    // A child with two children of its own: three more processes below this one.
    const child = spawn('sh', ['-c', 'sleep 30 & sleep 30 & echo ready; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    try {
      const during = processTreeUsage()!;
      expect(during.processes - before.processes).toBeGreaterThanOrEqual(3);
      expect(processTreeUsage(child.pid)!.processes).toBe(3);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('is undefined for a process that is not there, and says memory in MB or GB', () => {
    expect(processTreeUsage(2 ** 30)).toBeUndefined();
    expect(formatBytes(340e6)).toBe('340 MB');
    expect(formatBytes(1.24e9)).toBe('1.2 GB');
  });
});
