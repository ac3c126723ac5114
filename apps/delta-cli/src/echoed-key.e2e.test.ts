import { tmpdir } from 'node:os';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type OtlpReceiver,
  type RecordedRequest,
  redisUnavailable,
  startFakeLlm,
  startOtlpReceiver,
  startTestRedis,
} from '@delta/testkit';
import { startDelta } from './test-processes.test-support.js';
import { type DeltaResult, runDelta } from './test-support.js';

// A server (or a model) that echoes the key: in an error body, in a raw 5xx body, in a successful
// answer's text. The key must then be nowhere a person or a program can read it afterwards: no file
// under .delta/, no stdout or stderr of any command, no page, no exported span.

const KEY = 'sk-test-echoed-0123456789abcdefKEY';

const open: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
  await cleanupTempDirs();
});

/** Where the key is, of these outputs and every file under these directories (and the spans, when given). */
function leaksOf(outputs: Array<{ command: string; result: DeltaResult }>, directories: string[], spans?: unknown[]): string[] {
  const leaks: string[] = [];
  for (const { command, result } of outputs) {
    if (result.stdout.includes(KEY)) leaks.push(`stdout of delta ${command}`);
    if (result.stderr.includes(KEY)) leaks.push(`stderr of delta ${command}`);
  }
  for (const directory of directories) for (const { path, text } of filesUnder(directory)) if (text.includes(KEY)) leaks.push(path);
  if (spans !== undefined && JSON.stringify(spans).includes(KEY)) leaks.push('an OTLP span');
  return leaks;
}

/** Every file under `dir`, recursively, with its text. */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const found: Array<{ path: string; text: string }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesUnder(path));
    else if (entry.isFile() && statSync(path).size < 64 * 1024 * 1024) found.push({ path, text: readFileSync(path, 'latin1') });
  }
  return found;
}

describe('a key the endpoint echoes back', () => {
  it('is found nowhere: not under .delta/, in no output of run, continue, show, view, log, nor in OTLP spans', async () => {
    const llm: FakeLlm = await startFakeLlm({
      apiKey: KEY,
      script: [
        // A first run: the endpoint refuses and quotes the key, as OpenAI does for a wrong one.
        {
          error: { status: 401, message: `Incorrect API key provided: ${KEY}. You can find your API key at ...`, code: 'invalid_api_key' },
        },
        // After `delta continue`: a proxy's 5xx body quotes it, then the model says it (it read it somewhere).
        {
          raw: {
            status: 500,
            content_type: 'application/json',
            body: JSON.stringify({ error: { message: `upstream refused key ${KEY}` } }),
          },
        },
        { content: `Your key is ${KEY}, and I called a tool.`, tool_calls: [{ name: 'echo', arguments: { text: `key=${KEY}` } }] },
        { content: `Done; the key was ${KEY}.` },
      ],
    });
    open.push(llm);
    const receiver: OtlpReceiver = await startOtlpReceiver();
    open.push(receiver);
    const agent = await createTempAgent({
      agentYaml: {
        name: 'echoed-key',
        llm: { model: 'm', max_retries: 0 },
        tools: [{ name: 'echo', description: 'Echo', exec: 'cat', stdin: 'text' }],
      },
    });
    const work = join(await createTempDir('echoed-key-'), 'w');
    const env = { DELTA_API_KEY: KEY, DELTA_BASE_URL: llm.baseUrl, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const outputs: Array<{ command: string; result: DeltaResult }> = [];
    const delta = async (args: string[]) => {
      const result = await runDelta(args, { env });
      outputs.push({ command: args.join(' '), result });
      return result;
    };

    const first = await delta(['run', '--agent', agent, '-m', 'go', '-w', work, '-y']);
    expect(first.exitCode, first.stderr).not.toBe(0);
    const second = await delta(['continue', '-w', work, '-m', 'try again']);
    expect(second.exitCode, second.stderr).not.toBe(0);
    const third = await delta(['continue', '-w', work, '-m', 'try again']);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(llm.requests.length).toBe(4);

    await delta(['show', 'run', '-w', work]);
    for (const n of ['1', '2', '3', '4']) {
      await delta(['show', 'invocation', n, '-w', work]);
      await delta(['show', 'invocation', n, '-w', work, '--response']);
    }
    await delta(['show', 'action', '1', '-w', work]);
    await delta(['log', '-w', work]);
    await delta(['log', '-w', work, '--raw']);
    await delta(['view', '-w', work, '-o', join(work, '..', 'view.html')]);
    await delta(['view', '-w', work, '--stdout']);
    await delta(['export', 'otel', '-w', work, '--endpoint', receiver.url, '--content']);

    expect(leaksOf(outputs, [join(work, '..')], receiver.spans)).toEqual([]);
    // The redaction is visible where the key was: the person reading it knows something was there.
    expect(outputs.map(({ result }) => result.stdout + result.stderr).join('\n')).toContain('[REDACTED]');
    expect(receiver.spans.length).toBeGreaterThan(0);
  });

  it('streamed, with hooks, and in a batch run by `delta worker`: the key is in no record, hook input, output or batch file', async () => {
    // Each task's first request is refused with the key quoted; `b`'s is answered, streamed in small
    // pieces (the key cut between events), with the key in the text and in a tool call's arguments.
    const llm: FakeLlm = await startFakeLlm({
      script: (request: RecordedRequest) => {
        const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
        const task = String(messages.find((message) => message.role === 'user')?.content ?? '');
        if (task === 'do a') return { error: { status: 401, message: `Incorrect API key provided: ${KEY}.` } };
        if (messages.some((message) => message.role === 'tool')) return { content: `Finished; the key was ${KEY}.` };
        return { content: `Streaming ${KEY} now.`, tool_calls: [{ name: 'echo', arguments: { text: `key=${KEY}` } }] };
      },
    });
    open.push(llm);
    const hook = `#!/bin/sh\ncat "$DELTA_HOOK_IO_PATH"/input/* > /dev/null 2>&1; exit 0\n`;
    const agent = await createTempAgent({
      agentYaml: {
        name: 'echoed-key-streamed',
        llm: { model: 'm', max_retries: 0, stream: true },
        tools: [{ name: 'echo', description: 'Echo', exec: 'cat', stdin: 'text' }],
      },
      hooksYaml: ['post_llm_response', 'on_error', 'on_run_end']
        .map((name) => `${name}:\n  command: ['\${AGENT_HOME}/hook.sh']\n`)
        .join(''),
      files: { 'hook.sh': hook },
    });
    const { chmodSync, writeFileSync } = await import('node:fs');
    chmodSync(join(agent, 'hook.sh'), 0o755);
    const directory = await createTempDir('echoed-key-batch-');
    const env = { DELTA_API_KEY: KEY, DELTA_BASE_URL: llm.baseUrl };
    const outputs: Array<{ command: string; result: DeltaResult }> = [];

    const work = join(directory, 'w');
    const single = await runDelta(['run', '--agent', agent, '-m', 'do b', '-w', work, '-y', '--json'], { env });
    outputs.push({ command: 'run --json (streamed)', result: single });
    expect(single.exitCode, single.stderr).toBe(0);
    outputs.push({ command: 'show invocation 1', result: await runDelta(['show', 'invocation', '1', '-w', work], { env }) });
    outputs.push({ command: 'log', result: await runDelta(['log', '-w', work], { env }) });

    const tasks = join(directory, 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 'a', message: 'do a' })}\n${JSON.stringify({ id: 'b', message: 'do b' })}\n`);
    const out = join(directory, 'out');
    const unavailable = redisUnavailable();
    if (unavailable) {
      outputs.push({ command: 'batch', result: await runDelta(['batch', tasks, '--agent', agent, '--out', out], { env }) });
    } else {
      const redis = await startTestRedis();
      open.push({ close: () => redis.stop() });
      const batch = startDelta(['batch', tasks, '--agent', agent, '--out', out, '--queue', redis.url, '--wait'], env);
      const worker = startDelta(['worker', '--queue', redis.url, '--root', tmpdir()], env);
      outputs.push({ command: 'batch --queue --wait', result: await batch.done });
      worker.child.kill('SIGTERM');
      outputs.push({ command: 'worker', result: await worker.done });
      expect(outputs.at(-2)!.result.stdout).toContain('2 runs: 1 completed, 1 failed');
    }
    outputs.push({ command: 'view OUT', result: await runDelta(['view', out], { env }) });

    const leaks = leaksOf(outputs, [directory]);
    expect(leaks).toEqual([]);
    const all = outputs.map(({ result }) => result.stdout + result.stderr).join('\n');
    expect(all).toContain('[REDACTED]');
    // The hooks ran and were given the (redacted) response.
    expect(filesUnder(work).some(({ path, text }) => path.includes('post_llm_response') && text.includes('[REDACTED]'))).toBe(true);
    // A stream cuts the key in pieces (no grep finds it whole): an answer that held it keeps no response.sse.
    expect(filesUnder(work).filter(({ path }) => path.endsWith('response.sse'))).toEqual([]);
    expect(filesUnder(work).filter(({ path }) => path.includes('/io/invocations/') && path.endsWith('response.json')).length).toBe(2);
  });
});
