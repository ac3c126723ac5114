// MCP servers in a real run: @modelcontextprotocol/server-filesystem from npm, and a server of our own that
// can be killed in the middle of a call. The model is the testkit's; the servers are real processes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { continueRun, loadAgent, startRun } from './index.js';
import { HANG_SERVER, results, serverProcesses, waitFor } from './mcp-servers.test-support.js';

// Real bubblewrap for the sandboxed runs: .ci/run installs it. Only a machine where that install failed may
// skip them, loudly.
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
const skipSandboxed = !probeBubblewrap().ok && unavailable !== undefined;
if (skipSandboxed) {
  console.warn(
    `\n!!!!!!!!\n!!! SKIPPING the sandboxed MCP server crash test: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`,
  );
}

afterEach(cleanupTestResources);

describe('mcp_servers', () => {
  // Sandboxed (the default when bubblewrap works) and not: the server is killed from outside, by the pid this
  // machine knows it by (inside the sandbox's PID namespace it has another), found by its command line.
  for (const mode of ['off', 'workspace-write'] as const) {
    it.skipIf(mode !== 'off' && skipSandboxed)(
      `a server killed in the middle of a call gives an observation, is restarted, and the run completes (sandbox ${mode})`,
      async () => {
        const workDir = await createTempDir('mcp-run-');
        const pidFile = join(workDir, 'hang.pid');
        const server = await startFakeLlm({
          script: [
            { tool_calls: [{ name: 'mcp__slow__hang', arguments: {} }] },
            { tool_calls: [{ name: 'mcp__slow__echo', arguments: { text: 'after the crash' } }] },
            { content: 'done' },
          ],
        });
        const home = await createTempAgent({
          agentYaml: {
            name: 'mcp-crash',
            llm: { model: 'm', max_retries: 0 },
            sandbox: { mode },
            // ${CWD} in its arguments tells this server's processes from every other test's.
            mcp_servers: [
              { name: 'slow', command: process.execPath, args: [HANG_SERVER, '${CWD}'], env: { HANG_PID_FILE: '${CWD}/hang.pid' } },
            ],
          },
        });
        const run = startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
        await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '');
        const killed = serverProcesses(workDir);
        expect(killed).toHaveLength(1);
        process.kill(killed[0]!, 'SIGKILL');
        const result = await run;
        expect(result.status).toBe('COMPLETED');
        expect(result.finalAnswer).toBe('done');

        const events = readJournal(result.paths.journal);
        expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({ sandbox: { mode } });
        const [crashed, echoed] = results(events);
        const log = join(result.paths.runDir, 'mcp', 'slow.stderr.log');
        // bubblewrap, which runs a sandboxed server, reports a server killed by signal N as exit 128 + N.
        const ending = mode === 'off' ? 'SIGKILL' : 'exit 137';
        expect(crashed).toMatchObject({
          tool_name: 'mcp__slow__hang',
          status: 'ERROR',
          observation_content: `Error: the MCP server slow stopped during the call (${ending}); its stderr is in ${log}. It was restarted: call the tool again if you still need it.`,
        });
        expect(echoed).toMatchObject({ tool_name: 'mcp__slow__echo', status: 'SUCCESS' });
        // Another process answered: unsandboxed, another pid; sandboxed, each server has a PID namespace of
        // its own (where both may well be pid 2), and the log below shows the second start.
        const restartedPid = Number(/pid (\d+)/.exec(echoed?.type === 'ACTION_RESULT' ? echoed.observation_content : '')![1]);
        if (mode === 'off') expect(restartedPid).not.toBe(Number(readFileSync(pidFile, 'utf8')));
        // Both servers wrote to the one log; the restarted one is stopped with the run.
        expect(readFileSync(log, 'utf8').match(/hang-server ready/g)).toHaveLength(2);
        expect(serverProcesses(workDir)).toEqual([]);
      },
    );
  }

  it('servers stop when the run pauses for a human, and start again when it continues', async () => {
    const workDir = await createTempDir('mcp-run-');
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'mcp__slow__echo', arguments: { text: 'one' } }] },
        { tool_calls: [{ name: 'ask_human', arguments: { prompt: 'go on?' } }] },
        { tool_calls: [{ name: 'mcp__slow__echo', arguments: { text: 'two' } }] },
        { content: 'done' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'mcp-pause',
        llm: { model: 'm', max_retries: 0 },
        mcp_servers: [{ name: 'slow', command: process.execPath, args: [HANG_SERVER, '${CWD}'] }],
      },
    });
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
    expect(result.status).toBe('WAITING_FOR_INPUT');
    expect(results(readJournal(result.paths.journal))[0]).toMatchObject({ tool_name: 'mcp__slow__echo', status: 'SUCCESS' });
    expect(serverProcesses(workDir)).toEqual([]);

    const continued = await continueRun({ workDir, message: 'yes', apiKey: 'sk-test', baseUrl: server.baseUrl });
    expect(continued.status).toBe('COMPLETED');
    const [, answered, again] = results(readJournal(result.paths.journal));
    expect(answered).toMatchObject({ tool_name: 'ask_human', observation_content: 'yes' });
    expect(again).toMatchObject({ tool_name: 'mcp__slow__echo', status: 'SUCCESS' });
    // Started again by the continued run (its log says so twice), and stopped with it.
    expect(readFileSync(join(result.paths.runDir, 'mcp', 'slow.stderr.log'), 'utf8').match(/hang-server ready/g)).toHaveLength(2);
    expect(serverProcesses(workDir)).toEqual([]);
  });
});
