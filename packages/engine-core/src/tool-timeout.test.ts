// Each tool's own timeout_ms stops its whole process group, and the model is told which limit it hit.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessGroupAlive, readProcessFile } from '@delta/process-identity';
import { cleanupTempDirs } from '@delta/testkit';
import { callTool, toolCallContext } from './tool-call.test-support.js';

afterEach(() => cleanupTempDirs());

describe('timeout_ms', () => {
  it("stops the whole process group at the tool's own limit, and says which limit", async () => {
    const context = await toolCallContext([
      { name: 'slow', shell: 'echo started; (sleep 1; touch late-child) & sleep 5', timeout_ms: 300 },
    ]);
    const outcome = await callTool(context, 'slow');
    expect(outcome.status).toBe('FAILED');
    expect(outcome.exitCode).toBeNull();
    expect(outcome.observation).toBe(
      'started\n[the tool was stopped: it ran past its time limit of 300 ms (timeout_ms); its whole process group was killed]',
    );
    // The background child that would touch late-child was in the tool's group: once no member of the
    // group is left, it never will. (Had the group not been stopped, `sleep 5` would keep it past the touch.)
    const { pid } = readProcessFile(join(context.paths.toolExecutionsDir, outcome.executionRef!, 'process.json'))!;
    await expect.poll(() => isProcessGroupAlive(pid), { timeout: 30_000, interval: 10 }).toBe(false);
    expect(existsSync(join(context.paths.workDir, 'late-child'))).toBe(false);
  });

  it("applies each tool's limit separately: a tool with a longer limit finishes", async () => {
    const context = await toolCallContext([
      { name: 'quick_limit', exec: 'sleep 0.5', timeout_ms: 100 },
      { name: 'long_limit', exec: 'sleep 0.5', timeout_ms: 5000 },
    ]);
    expect((await callTool(context, 'quick_limit')).observation).toContain('time limit of 100 ms');
    expect(await callTool(context, 'long_limit')).toMatchObject({ status: 'SUCCESS', exitCode: 0, observation: '(no output)' });
  });

  it('lets the engine cap every limit (the smaller wins)', async () => {
    const context = await toolCallContext([{ name: 'capped', exec: 'sleep 5', timeout_ms: 60_000 }], { timeoutMs: 200 });
    expect((await callTool(context, 'capped')).observation).toContain('time limit of 200 ms');
  });
});
