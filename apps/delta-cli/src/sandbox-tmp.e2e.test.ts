// A run sandbox's private /tmp outlives an engine killed with SIGKILL (issue 32: 79 had built up on one
// machine); the next engine to start a sandbox removes it, and never one whose owner still runs.
import { existsSync, mkdirSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { processStartTicks } from '@delta/process-identity';
import { runDelta } from './test-support.js';

// Real bubblewrap: .ci/run installs it. Only a machine where that install failed may skip, loudly.
const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
if (!probe.ok && unavailable) {
  console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandbox /tmp clean-up test: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`);
}

const servers: FakeLlm[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await cleanupTempDirs();
});

const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1]!;

describe.skipIf(!probe.ok && unavailable !== undefined)("the sandbox's /tmp after kill -9 (real bubblewrap)", () => {
  it('is removed by the next start, while one whose owner lives is kept', async () => {
    // This machine's temporary directory, as the engines see it: one of the test's own.
    const tmp = await createTempDir('sandbox-tmpdir-');
    const work = await createTempDir('work-');
    const agent = await createTempAgent({
      agentYaml: {
        name: 'sleeper',
        llm: { model: 'm', max_retries: 0 },
        tools: [{ name: 'wait', description: 'x', shell: 'echo left > /tmp/left.txt; touch started; sleep 600' }],
      },
    });
    const env = (server: FakeLlm) => ({ TMPDIR: tmp, DELTA_API_KEY: 'sk-test', DELTA_BASE_URL: server.baseUrl });
    const first = await startFakeLlm({ script: [{ tool_calls: [{ name: 'wait', arguments: {} }] }, { content: 'done' }] });
    servers.push(first);
    let enginePid = 0;
    const killed = runDelta(['run', '--agent', agent, '-m', 'go', '-w', work], { env: env(first), onSpawn: (pid) => (enginePid = pid) });
    await expect.poll(() => existsSync(join(work, 'started')), { timeout: 30_000, interval: 20, message: 'the tool to start' }).toBe(true);
    process.kill(enginePid, 'SIGKILL');
    expect((await killed).signal).toBe('SIGKILL');
    // Under a TMPDIR other than /tmp the runs' private /tmp directories are kept in a directory of their own.
    const sandboxes = join(tmp, `delta-sandboxes-${process.geteuid?.() ?? 0}`);
    // The run's sandbox (its /tmp in tmp/) and the engine's copy of the launcher's bash, both named for it.
    const left = readdirSync(sandboxes).filter((name) => name.startsWith('delta-sandbox-tmp-'));
    const named = new RegExp(`^delta-sandbox-tmp-${namespace}-${enginePid}-\\d+-\\w{6}$`);
    expect(left).toEqual([expect.stringMatching(named), expect.stringMatching(named)]);
    expect(left.filter((name) => existsSync(join(sandboxes, name, 'tmp', 'left.txt')))).toHaveLength(1);
    // One whose owner runs (this test process).
    const live = `delta-sandbox-tmp-${namespace}-${process.pid}-${processStartTicks(process.pid)}-Live01`;
    mkdirSync(join(sandboxes, live));

    const second = await startFakeLlm({ script: [{ content: 'done' }] });
    servers.push(second);
    const next = await runDelta(['run', '--agent', agent, '-m', 'again', '-w', work], { env: env(second) });
    expect(next.exitCode, next.stderr).toBe(0);
    // The abandoned one is gone, the live one kept, and the second run's own removed at its end.
    expect(readdirSync(sandboxes).filter((name) => name.startsWith('delta-sandbox-tmp-'))).toEqual([live]);
  });
});
