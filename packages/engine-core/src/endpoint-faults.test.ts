import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStepInput } from '@delta/testkit';
import { readJournal, readMetadata } from '@delta/journal';
import { continueRun, loadAgent, startRun } from './index.js';
import { ExitCode } from './exit-codes.js';

// 429 and 5xx are retried with backoff (Retry-After honoured), a request has a bounded time, and spent
// retries fail the run with a message that says how to retry it.

let server: FakeLlm | undefined;
let raw: Server | undefined;
afterEach(async () => {
  await server?.close();
  await new Promise((resolve) => (raw ? raw.close(resolve) : resolve(undefined)));
  server = undefined;
  raw = undefined;
  await cleanupTempDirs();
});

async function start(llm: Record<string, unknown>, baseUrl: string, signal?: AbortSignal) {
  const agent = loadAgent(await createTempAgent({ agentYaml: { name: 'faults', llm: { model: 'm', ...llm } } }));
  const workDir = join(await createTempDir('faults-'), 'w');
  const started = performance.now();
  const result = await startRun({ agent, message: 'hi', workDir, apiKey: 'k', baseUrl, ...(signal ? { signal } : {}) });
  return { result, agent, workDir, seconds: (performance.now() - started) / 1000 };
}

async function fake(script: ScriptStepInput[]) {
  server = await startFakeLlm({ script });
  return server.baseUrl;
}

const completion = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });

/** A real HTTP endpoint answering each request with the next of `answers` (status, headers, body). */
async function rawEndpoint(answers: Array<{ status: number; headers?: Record<string, string>; body: string }>) {
  const times: number[] = [];
  let answered: () => void = () => undefined;
  /** Settles once the first answer has been sent whole. */
  const firstAnswerSent = new Promise<void>((resolve) => (answered = resolve));
  raw = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      times.push(performance.now());
      const answer = answers[Math.min(times.length - 1, answers.length - 1)]!;
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body, answered);
    });
  });
  await new Promise<void>((resolve) => raw!.listen(0, '127.0.0.1', resolve));
  const { port } = raw.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}/v1`, times, firstAnswerSent };
}

describe('endpoint faults', () => {
  it('retries a 429 after the time its Retry-After header asks for', async () => {
    const rateLimited = {
      status: 429,
      headers: { 'retry-after': '1.2' },
      body: JSON.stringify({ error: { message: 'slow down', type: 'rate_limit' } }),
    };
    const endpoint = await rawEndpoint([rateLimited, { status: 200, body: completion('after the wait') }]);
    const { result } = await start({ max_retries: 2 }, endpoint.baseUrl);
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'after the wait' });
    expect(endpoint.times).toHaveLength(2);
    // Without the header the first backoff is at most 0.5 s.
    expect(endpoint.times[1]! - endpoint.times[0]!).toBeGreaterThanOrEqual(1150);
  });

  it('fails a run whose answer nests 10,000 deep with a clear reason, keeping the body as it came', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const body = `{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi","extra":${deep}},"finish_reason":"stop"}]}`;
    const endpoint = await rawEndpoint([{ status: 200, body }]);
    const { result, workDir } = await start({ max_retries: 1 }, endpoint.baseUrl);
    expect(result).toMatchObject({ status: 'FAILED', exitCode: ExitCode.FAILED });
    expect(result.reason).toMatch(/answered HTTP 200 with JSON nested more than 256 levels deep; the engine does not read it\.$/);
    const invocations = join(workDir, '.delta', result.runId, 'io', 'invocations');
    const [invocation] = readdirSync(invocations);
    expect(readFileSync(join(invocations, invocation!, 'response.raw'), 'utf8')).toBe(body);
    expect(JSON.parse(readFileSync(join(invocations, invocation!, 'metadata.json'), 'utf8'))).toMatchObject({ status: 'FAILED' });
    expect(readMetadata(result.paths.metadata).status).toBe('FAILED');
    // Not retried: the same server would send the same body.
    expect(endpoint.times).toHaveLength(1);
  });

  it('gives an attempt llm.attempt_timeout_ms in all, however the server trickles its answer', async () => {
    const trickle = { large: { bytes: 1024 * 1024, chunk_bytes: 1, chunk_delay_ms: 100 } };
    const { result, seconds } = await start({ max_retries: 0, timeout_ms: 5_000, attempt_timeout_ms: 800 }, await fake([trickle]));
    expect(result).toMatchObject({ status: 'FAILED', exitCode: ExitCode.FAILED });
    expect(result.reason).toMatch(/did not finish its answer within 0\.8 s \(it kept sending, too slowly\)\.$/);
    expect(seconds).toBeLessThan(10);
  });

  it('retries a 500, then succeeds', async () => {
    const { result } = await start({ max_retries: 2 }, await fake([{ error: { status: 500, message: 'boom' } }, { content: 'recovered' }]));
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'recovered' });
    expect(server!.requests.map((request) => request.status)).toEqual([500, 200]);
  });

  it('gives a hanging endpoint llm.timeout_ms per attempt, then fails the run', async () => {
    const { result, seconds } = await start(
      { max_retries: 1, timeout_ms: 300 },
      await fake([
        { content: 'too late', delay_ms: 30_000 },
        { content: 'too late', delay_ms: 30_000 },
      ]),
    );
    expect(result).toMatchObject({ status: 'FAILED', exitCode: ExitCode.FAILED });
    expect(result.reason).toMatch(
      /^The model endpoint http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions sent nothing for 0\.3 s after the request\. \(2 attempts\)$/,
    );
    expect(server!.requests).toHaveLength(2);
    expect(seconds).toBeLessThan(5);
  });

  it('fails the run when the retries are spent, with a message that says how to retry, and delta continue -m retries it', async () => {
    const down = { error: { status: 503, message: 'overloaded' } } satisfies ScriptStepInput;
    const { result, agent, workDir } = await start({ max_retries: 2 }, await fake([down, down, down, { content: 'back again' }]));
    expect(result).toMatchObject({ status: 'FAILED', exitCode: ExitCode.FAILED });
    expect(result.reason).toContain('answered HTTP 503: overloaded (3 attempts)');
    const error = result.error as { hint?: string };
    expect(error.hint).toContain('`delta continue -w <workspace>` sends the same request again');
    expect(readMetadata(result.paths.metadata)).toMatchObject({ status: 'FAILED', exit_code: 1 });
    // Spec 000's error_details: who is at fault, the fix and the cause, for scripts that read the journal.
    expect(readJournal(result.paths.journal).find((event) => event.type === 'ERROR')).toMatchObject({
      error_code: 'MODEL_ERROR',
      error_details: { kind: 'system', hint: expect.stringContaining('delta continue'), cause: { status: 503 } },
    });

    const retried = await continueRun({ workDir, agent, message: 'retry', apiKey: 'k', baseUrl: server!.baseUrl });
    expect(retried).toMatchObject({ status: 'COMPLETED', finalAnswer: 'back again' });
    expect(server!.requests.map((request) => request.status)).toEqual([503, 503, 503, 200]);
  });

  it('resumes a run FAILED by 500s with a plain delta continue, sending the failed request again byte for byte', async () => {
    const down = { error: { status: 500, message: 'boom' } } satisfies ScriptStepInput;
    const { result, agent, workDir } = await start(
      { max_retries: 2 },
      await fake([{ content: 'first' }, down, down, down, { content: 'second' }]),
    );
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'first' });
    const next = await continueRun({ workDir, agent, message: 'and again', apiKey: 'k', baseUrl: server!.baseUrl });
    expect(next).toMatchObject({ status: 'FAILED', exitCode: ExitCode.FAILED });
    expect(readJournal(next.paths.journal).findLast((event) => event.type === 'ERROR')).toMatchObject({
      error_code: 'MODEL_ERROR',
      transient: true,
    });

    const resumed = await continueRun({ workDir, agent, apiKey: 'k', baseUrl: server!.baseUrl });
    expect(resumed).toMatchObject({ status: 'COMPLETED', finalAnswer: 'second' });
    const requests = server!.requests;
    expect(requests.map((request) => request.status)).toEqual([200, 500, 500, 500, 200]);
    expect(requests[4]!.rawBody).toBe(requests[3]!.rawBody);
    // The conversation was left as it was: no message added for the retry.
    expect(requests[4]!.body.messages.filter((message: { role: string }) => message.role === 'user')).toHaveLength(2);
  });

  it('still asks for a message to continue a run FAILED by an error that would come again (HTTP 400)', async () => {
    const { result, agent, workDir } = await start({ max_retries: 2 }, await fake([{ error: { status: 400, message: 'bad request' } }]));
    expect(result.status).toBe('FAILED');
    await expect(continueRun({ workDir, agent, apiKey: 'k', baseUrl: server!.baseUrl })).rejects.toMatchObject({
      code: 'MESSAGE_REQUIRED',
    });
  });

  it('stops waiting for a retry at once when the run is interrupted', async () => {
    const endpoint = await rawEndpoint([{ status: 429, headers: { 'retry-after': '30' }, body: '{"error":{"message":"wait"}}' }]);
    const controller = new AbortController();
    // Interrupted once the 429 is answered, while the engine waits out its Retry-After, not after a guessed delay.
    void endpoint.firstAnswerSent.then(() => controller.abort());
    const { result, seconds } = await start({ max_retries: 2 }, endpoint.baseUrl, controller.signal);
    expect(result).toMatchObject({ status: 'INTERRUPTED', exitCode: ExitCode.INTERRUPTED });
    expect(endpoint.times).toHaveLength(1);
    expect(seconds).toBeLessThan(3);
  });

  it('does not obey a Retry-After longer than a minute', async () => {
    const endpoint = await rawEndpoint([
      { status: 429, headers: { 'retry-after': '3600' }, body: '{"error":{"message":"come back in an hour"}}' },
    ]);
    const { result, seconds } = await start({ max_retries: 2 }, endpoint.baseUrl);
    expect(result).toMatchObject({ status: 'FAILED' });
    expect(result.reason).toContain('answered HTTP 429');
    expect(seconds).toBeLessThan(3);
  });
});
