import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readInvocationRequest, readJournal, readMetadata, runPaths } from '@delta/journal';
import { createServer } from 'node:net';
import { runDelta } from './test-support.js';

/** A loopback port nothing listens on: bound, then released. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

afterEach(cleanupTestResources);

const twoTools = {
  name: 'two-tools',
  llm: { model: 'test-model' },
  tools: [
    { name: 'write_file', description: 'Write a file', exec: 'tee -- ${path}', stdin: 'content' },
    { name: 'read_file', description: 'Read a file', exec: 'cat -- ${path}' },
  ],
};

describe('delta run, end to end', () => {
  it('runs two tools through a three-step conversation and leaves a correct control plane', async () => {
    const server = await startFakeLlm({
      script: [
        {
          content: 'Writing both files.',
          tool_calls: [
            { name: 'write_file', arguments: { path: 'a.txt', content: 'alpha\n' } },
            { name: 'write_file', arguments: { path: 'b.txt', content: 'beta; $(touch pwned)\n' } },
          ],
        },
        { content: 'Reading one back.', tool_calls: [{ name: 'read_file', arguments: { path: 'a.txt' } }] },
        { content: 'Both files are written; a.txt says alpha.' },
      ],
    });
    const agent = await createTempAgent({ agentYaml: twoTools });
    const work = join(await createTempDir('work-'), 'ws');
    const result = await runDelta(['run', '--agent', agent, '-m', 'Write a.txt and b.txt', '-w', work], {
      env: { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl },
    });
    expect(result.stderr).not.toContain('Error');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('Both files are written; a.txt says alpha.\n');

    // The files the tools wrote, and no injection.
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(work, 'b.txt'), 'utf8')).toBe('beta; $(touch pwned)\n');
    expect(existsSync(join(work, 'pwned'))).toBe(false);

    // The journal: every line parses, seq runs 1..n, the types come in order.
    const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
    expect(runId).toMatch(/^\d{8}_\d{6}_[a-z0-9]{6}$/);
    const runDir = join(work, '.delta', runId);
    const events = readJournal(join(runDir, 'journal.jsonl'));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => event.type)).toEqual([
      'ENGINE_START',
      'USER_MESSAGE',
      'THOUGHT',
      'ACTION_REQUEST',
      'ACTION_RESULT',
      'ACTION_REQUEST',
      'ACTION_RESULT',
      'THOUGHT',
      'ACTION_REQUEST',
      'ACTION_RESULT',
      'THOUGHT',
      'ENGINE_END',
    ]);
    const results = events.filter((event) => event.type === 'ACTION_RESULT');
    expect(results.map((event) => [event.action_id, event.status, event.exit_code])).toEqual([
      ['call_1_1', 'SUCCESS', 0],
      ['call_1_2', 'SUCCESS', 0],
      ['call_2_1', 'SUCCESS', 0],
    ]);

    // metadata.json
    expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', iterations: 3, run_id: runId, exit_code: 0 });
    expect(readFileSync(join(work, '.delta', 'VERSION'), 'utf8').trim()).toBe('1.3');

    // io records: one per tool call with its exit code; one per model call with the exact bytes sent.
    for (const id of ['call_1_1', 'call_1_2', 'call_2_1']) {
      const dir = join(runDir, 'io', 'tool_executions', id);
      expect(readFileSync(join(dir, 'exit_code.txt'), 'utf8')).toBe('0\n');
      expect(Number(readFileSync(join(dir, 'duration_ms.txt'), 'utf8'))).toBeGreaterThanOrEqual(0);
      expect(existsSync(join(dir, 'stderr.log'))).toBe(true);
    }
    expect(readFileSync(join(runDir, 'io', 'tool_executions', 'call_2_1', 'stdout.log'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(runDir, 'io', 'tool_executions', 'call_1_1', 'command.txt'), 'utf8')).toBe('tee -- a.txt\n');
    const invocations = readdirSync(join(runDir, 'io', 'invocations')).sort();
    expect(invocations).toHaveLength(3);
    invocations.forEach((id, index) => {
      expect(readInvocationRequest(runPaths(work, runId), id)).toBe(server.requests[index]!.rawBody);
      expect(JSON.parse(readFileSync(join(runDir, 'io', 'invocations', id, 'metadata.json'), 'utf8'))).toMatchObject({ status: 'SUCCESS' });
    });

    // The last request carries every earlier tool result with matching ids.
    const last = server.requests.at(-1)!.body as { messages: Array<Record<string, unknown>>; tools: Array<{ function: { name: string } }> };
    expect(last.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant', 'tool']);
    expect(last.messages.filter((message) => message.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_1_1', content: 'alpha' },
      { role: 'tool', tool_call_id: 'call_1_2', content: 'beta; $(touch pwned)' },
      { role: 'tool', tool_call_id: 'call_2_1', content: 'alpha' },
    ]);
    expect(last.tools.map((tool) => tool.function.name)).toEqual(['write_file', 'read_file', 'ask_human']);
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer test-key')).toBe(true);
  });

  it('fails with one clear message and exit 2 when there is no API key', async () => {
    const agent = await createTempAgent({ agentYaml: twoTools });
    const result = await runDelta(['run', '--agent', agent, '-m', 'x', '-w', join(agent, 'w')]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('No API key for the model: DELTA_API_KEY (or OPENAI_API_KEY) is missing or empty.');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('fails with exit 2 for a missing agent directory and for a missing -m', async () => {
    const missing = await runDelta(['run', '--agent', '/no/such/agent', '-m', 'x'], { env: { DELTA_API_KEY: 'k' } });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('Agent directory /no/such/agent does not exist.');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
    const usage = await runDelta(['run', '--agent', '.']);
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toContain('-m/--message is missing');
  });

  it('fails the run with exit 1 and a clear message when the endpoint is unreachable', async () => {
    const agent = await createTempAgent({ agentYaml: { ...twoTools, llm: { model: 'm', max_retries: 0 } } });
    const work = join(agent, 'w');
    const port = await closedPort();
    const result = await runDelta(['run', '--agent', agent, '-m', 'x', '-w', work], {
      env: { DELTA_API_KEY: 'k', DELTA_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`Cannot reach the model endpoint http://127.0.0.1:${port}/v1/chat/completions (ECONNREFUSED).`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
    expect(readMetadata(join(work, '.delta', runId, 'metadata.json'))).toMatchObject({ status: 'FAILED' });
  });

  it('answers --help and --version quickly', async () => {
    const help = await runDelta(['--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain('run');
    const version = await runDelta(['--version']);
    expect(version.stdout).toMatch(/^delta\/\d+\.\d+\.\d+/);
  });
});
