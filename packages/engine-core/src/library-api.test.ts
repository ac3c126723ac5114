import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal, type JournalEvent } from '@delta/journal';
import { loadAgent, modelClientFromOpenAI, runAgent, continueAgent, startRun } from './index.js';
import { ExitCode } from './exit-codes.js';

afterEach(cleanupTestResources);

const SLOW_TOOL = '#!/bin/sh\necho $$ > "$1"\nexec sleep 30\n';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the library API', () => {
  it('aborting the signal ends the run INTERRUPTED, stops the tool process and still runs on_run_end', async () => {
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'slow', arguments: {} }] }, { content: 'never asked' }] });
    const home = await createTempAgent({
      agentYaml: {
        name: 'slow',
        llm: { model: 'm', max_retries: 0 },
        // Unsandboxed: the tool writes its pid, which in the sandbox is a pid of the run's own namespace.
        sandbox: { mode: 'off' },
        tools: [{ name: 'slow', description: 'Sleeps', exec: '${AGENT_HOME}/slow.sh ${CWD}/tool.pid' }],
      },
      hooksYaml: 'on_run_end:\n  command: ["sh", "-c", "echo ended > run-end.txt"]\n',
      files: { 'slow.sh': { content: SLOW_TOOL, mode: 0o755 } },
    });
    const workDir = join(await createTempDir('work-'), 'w');
    const controller = new AbortController();
    const run = runAgent({
      agent: loadAgent(home),
      message: 'sleep',
      workDir,
      apiKey: 'k',
      baseUrl: server.baseUrl,
      signal: controller.signal,
    });

    const pidFile = join(workDir, 'tool.pid');
    await expect
      .poll(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', { timeout: 10_000, interval: 20 })
      .toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(isAlive(pid)).toBe(true);
    controller.abort(new Error('stop'));

    const events: JournalEvent[] = [];
    for await (const event of run.events) events.push(event);
    const result = await run.result;
    expect(result.status).toBe('INTERRUPTED');
    expect(result.exitCode).toBe(ExitCode.INTERRUPTED);
    await expect.poll(() => !isAlive(pid), { timeout: 5_000, interval: 20 }).toBe(true);
    expect(readFileSync(join(workDir, 'run-end.txt'), 'utf8')).toBe('ended\n');
    expect(server.requests).toHaveLength(1);
    // The iterable saw exactly what the journal holds, ending with ENGINE_END INTERRUPTED.
    expect(events).toEqual(readJournal(result.paths.journal));
    expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'INTERRUPTED' });
    expect(events.some((event) => event.type === 'HOOK_EXECUTION_AUDIT' && event.hook_name === 'on_run_end')).toBe(true);
    const toolResult = events.find((event) => event.type === 'ACTION_RESULT');
    expect(toolResult).toBeDefined();
  });

  it('starts tools through its launcher process, which is gone once the run has ended', async () => {
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'parent', arguments: {} }] },
        { tool_calls: [{ name: 'parent', arguments: {} }] },
        { content: 'done' },
      ],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'launched',
        llm: { model: 'm', max_retries: 0 },
        // Unsandboxed: in the sandbox the tool's parent is bubblewrap, in the run's own PID namespace.
        sandbox: { mode: 'off' },
        tools: [{ name: 'parent', description: 'Says who started it', shell: 'echo $PPID >> parents.txt' }],
      },
    });
    const workDir = join(await createTempDir('work-'), 'w');
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'k', baseUrl: server.baseUrl });
    expect(result.status).toBe('COMPLETED');
    const parents = readFileSync(join(workDir, 'parents.txt'), 'utf8').trim().split('\n').map(Number);
    // Both tool calls came from one launcher process, not from the engine (this process).
    expect(parents).toHaveLength(2);
    expect(parents[0]).toBe(parents[1]);
    expect(parents[0]).not.toBe(process.pid);
    await expect.poll(() => !isAlive(parents[0]!), { timeout: 5_000, interval: 20 }).toBe(true);
  });

  it('runs with an openai SDK client of the caller, recording the exact bytes it sent', async () => {
    const server = await startFakeLlm({ script: [{ content: 'hello from the injected client' }], apiKey: 'secret-key' });
    const home = await createTempAgent({ agentYaml: { name: 'injected', llm: { model: 'm', max_retries: 0 } } });
    const workDir = join(await createTempDir('work-'), 'w');
    const client = new OpenAI({
      apiKey: 'secret-key',
      baseURL: server.baseUrl,
      maxRetries: 0,
      defaultHeaders: { 'x-caller': 'library-test' },
    });
    // No apiKey, baseUrl or environment: the engine must use the client, not look for settings.
    const result = await startRun({
      agent: loadAgent(home),
      message: 'hi',
      workDir,
      model: modelClientFromOpenAI(client),
      environment: {},
    });
    expect(result.status).toBe('COMPLETED');
    expect(result.finalAnswer).toBe('hello from the injected client');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers['x-caller']).toBe('library-test');
    const invocation = readdirSync(result.paths.invocationsDir)[0]!;
    const recorded = readFileSync(join(result.paths.invocationsDir, invocation, 'request.json'), 'utf8');
    expect(recorded).toBe(server.requests[0]!.rawBody);
  });

  it('starts a run with the id the caller chose, and refuses that id again or an unsafe one before anything is written', async () => {
    const server = await startFakeLlm({ script: [{ content: 'done' }] });
    const home = await createTempAgent({ agentYaml: { name: 'chosen', llm: { model: 'm', max_retries: 0 } } });
    const workDir = join(await createTempDir('work-'), 'w');
    const options = { agent: loadAgent(home), message: 'hi', workDir, apiKey: 'k', baseUrl: server.baseUrl };
    const result = await startRun({ ...options, runId: 'nightly-1' });
    expect(result).toMatchObject({ status: 'COMPLETED', runId: 'nightly-1', paths: { runDir: join(workDir, '.delta', 'nightly-1') } });
    expect(readFileSync(join(workDir, '.delta', 'LATEST'), 'utf8')).toBe('nightly-1\n');
    expect(readJournal(result.paths.journal)[0]).toMatchObject({ type: 'ENGINE_START', run_id: 'nightly-1' });
    const journalBefore = readFileSync(result.paths.journal, 'utf8');

    await expect(startRun({ ...options, runId: 'nightly-1' })).rejects.toMatchObject({ code: 'RUN_ID_TAKEN', kind: 'configuration' });
    await expect(startRun({ ...options, runId: '../escape' })).rejects.toMatchObject({ code: 'RUN_ID_INVALID', field: 'runId' });
    expect(server.requests).toHaveLength(1);
    expect(readFileSync(result.paths.journal, 'utf8')).toBe(journalBefore);
    expect(readdirSync(join(workDir, '.delta')).sort()).toEqual(['LATEST', 'VERSION', 'nightly-1', 'workspace-env.json']);
    expect(existsSync(join(workDir, 'escape'))).toBe(false);
  });

  it('streams events with runAgent and continueAgent, and still calls onEvent', async () => {
    const server = await startFakeLlm({ script: [{ content: 'first' }, { content: 'second' }] });
    const home = await createTempAgent({ agentYaml: { name: 'stream', llm: { model: 'm', max_retries: 0 } } });
    const workDir = join(await createTempDir('work-'), 'w');
    const seen: string[] = [];
    const first = runAgent({
      agent: loadAgent(home),
      message: 'one',
      workDir,
      apiKey: 'k',
      baseUrl: server.baseUrl,
      onEvent: (event) => seen.push(event.type),
    });
    const types: string[] = [];
    for await (const event of first.events) types.push(event.type);
    expect((await first.result).finalAnswer).toBe('first');
    expect(types).toEqual(seen);
    expect(types[0]).toBe('ENGINE_START');
    expect(types.at(-1)).toBe('ENGINE_END');

    const second = continueAgent({ workDir, message: 'two', apiKey: 'k', baseUrl: server.baseUrl });
    const later: JournalEvent[] = [];
    for await (const event of second.events) later.push(event);
    expect((await second.result).finalAnswer).toBe('second');
    expect(later.find((event) => event.type === 'USER_MESSAGE')).toMatchObject({ content: 'two' });
  });

  it('throws a configuration error from the iterable and from result', async () => {
    const run = continueAgent({ workDir: join(await createTempDir('work-'), 'missing') });
    await expect(run.result).rejects.toMatchObject({ code: 'NO_RUN' });
    await expect(async () => {
      for await (const event of run.events) void event;
    }).rejects.toMatchObject({ code: 'NO_RUN' });
  });
});
