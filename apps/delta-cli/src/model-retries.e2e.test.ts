import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal, readLatestRunId, runPaths, type SystemMessageEvent } from '@delta/journal';
import { runDelta } from './test-support.js';

// Every retry of a model request, and its wait (a 429's Retry-After too), is in the journal and on the
// progress output; `--retries` sets the attempts over agent.yaml's llm.max_retries.

afterEach(cleanupTestResources);

const agentYaml = (maxRetries: number) => ({ name: 'retries', llm: { model: 'test-model', max_retries: maxRetries } });

async function setUp(script: ScriptStep[], maxRetries: number) {
  const server = await startFakeLlm({ script });
  const agent = await createTempAgent({ agentYaml: agentYaml(maxRetries) });
  const work = join(await createTempDir('work-'), 'ws');
  const env = { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl };
  return { agent, work, env, endpoint: `${server.baseUrl}/chat/completions`, server };
}

function retries(work: string): SystemMessageEvent[] {
  const journal = readJournal(runPaths(work, readLatestRunId(work)!).journal);
  return journal.filter((event): event is SystemMessageEvent => event.type === 'SYSTEM_MESSAGE' && event.model_retry !== undefined);
}

describe('retries of model requests', () => {
  it('records a 500 and a 429 with their Retry-After in the journal and on stderr, --retries over llm.max_retries', async () => {
    const { agent, work, env, endpoint, server } = await setUp(
      [
        { error: { status: 500, message: 'upstream broke', retry_after: 0 } },
        { error: { status: 429, message: 'slow down', retry_after: 1 } },
        { content: 'Done after two retries.' },
      ],
      0,
    );
    const result = await runDelta(['run', '--agent', agent, '-m', 'hi', '-w', work, '--retries', '2'], { env });
    expect(result.stderr).not.toContain('Error');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('Done after two retries.\n');
    expect(result.stderr).toContain(`model: HTTP 500 from ${endpoint}, retry 1/2 in 0.0 s (as Retry-After asked)\n`);
    expect(result.stderr).toContain(`model: HTTP 429 from ${endpoint}, retry 2/2 in 1.0 s (as Retry-After asked)\n`);

    const recorded = retries(work);
    expect(recorded.map((event) => [event.level, event.iteration, event.model_retry])).toEqual([
      [
        'WARN',
        1,
        {
          llm_invocation_ref: expect.any(String),
          attempt: 1,
          attempts: 3,
          delay_ms: 0,
          retry_after_ms: 0,
          status: 500,
          reason: 'HTTP 500',
        },
      ],
      [
        'WARN',
        1,
        {
          llm_invocation_ref: recorded[0]!.model_retry!.llm_invocation_ref,
          attempt: 2,
          attempts: 3,
          delay_ms: 1000,
          retry_after_ms: 1000,
          status: 429,
          reason: 'HTTP 429',
        },
      ],
    ]);
    // Three attempts of one request, the same bytes each time.
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((request) => request.rawBody)).size).toBe(1);
  });

  it('waits with backoff when no Retry-After is given, and records that wait', async () => {
    const { agent, work, env, endpoint } = await setUp([{ error: { status: 503, message: 'overloaded' } }, { content: 'ok' }], 1);
    const result = await runDelta(['run', '--agent', agent, '-m', 'hi', '-w', work], { env });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`model: HTTP 503 from ${endpoint.replace(/[.]/g, '\\.')}, retry 1/1 in 0\\.[45] s\\n`));
    const [retry] = retries(work);
    expect(retry!.model_retry).toMatchObject({ attempt: 1, attempts: 2, status: 503 });
    expect(retry!.model_retry!.retry_after_ms).toBeUndefined();
    expect(retry!.model_retry!.delay_ms).toBeGreaterThanOrEqual(375);
    expect(retry!.model_retry!.delay_ms).toBeLessThanOrEqual(500);
  });

  it('--retries 0 fails at the first 500; a plain continue with --retries 1 retries and completes', async () => {
    const { agent, work, env, endpoint, server } = await setUp(
      [
        { error: { status: 500, message: 'down' } },
        { error: { status: 502, message: 'still down', retry_after: 0 } },
        { content: 'Back up.' },
      ],
      2,
    );
    const failed = await runDelta(['run', '--agent', agent, '-m', 'hi', '-w', work, '--retries', '0'], { env });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).not.toContain('retry 1/');
    expect(server.requests).toHaveLength(1);
    expect(retries(work)).toEqual([]);

    const resumed = await runDelta(['continue', '-w', work, '--retries', '1'], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe('Back up.\n');
    expect(resumed.stderr).toContain(`model: HTTP 502 from ${endpoint}, retry 1/1 in 0.0 s (as Retry-After asked)\n`);
    expect(retries(work).map((event) => event.model_retry!.attempts)).toEqual([2]);
  });

  it('names an answer with nothing to act on by its code, and an HTML page from a proxy', async () => {
    const { agent, work, env, endpoint } = await setUp(
      [
        { raw: { status: 200, json: { id: 'x', object: 'chat.completion', choices: [] } } },
        { raw: { status: 200, content_type: 'text/html', body: '<html><body>Bad gateway</body></html>' } },
        { content: 'Finally.' },
      ],
      2,
    );
    const result = await runDelta(['run', '--agent', agent, '-m', 'hi', '-w', work], { env });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      new RegExp(`model: MODEL_EMPTY_RESPONSE from ${endpoint.replace(/[.]/g, '\\.')}, retry 1/2 in 0\\.[45] s\\n`),
    );
    expect(result.stderr).toMatch(
      new RegExp(`model: MODEL_BAD_RESPONSE from ${endpoint.replace(/[.]/g, '\\.')}, retry 2/2 in \\d\\.\\d s\\n`),
    );
    expect(retries(work).map((event) => [event.model_retry!.reason, event.model_retry!.status])).toEqual([
      ['MODEL_EMPTY_RESPONSE', 200],
      ['MODEL_BAD_RESPONSE', 200],
    ]);
  });

  it('refuses a --retries that is not a whole number from 0 to 10', async () => {
    const { agent, work, env, server } = await setUp([{ content: 'never asked' }], 2);
    for (const value of ['-1', '11', 'two']) {
      const result = await runDelta(['run', '--agent', agent, '-m', 'hi', '-w', work, `--retries=${value}`], { env });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`--retries must be a whole number from 0 to 10, got "${value}".`);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('after a transient failure gives one way forward, delta continue -w W (no -m), which sends the same request again', async () => {
    const { agent, work, env } = await setUp([{ error: { status: 503, message: 'overloaded' } }, { content: 'Back again.' }], 0);
    const failed = await runDelta(['run', '--agent', agent, '-m', 'hi', '-w', work], { env });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(`Hint: Once it works again, \`delta continue -w ${work}\` sends the same request again.\n`);
    // Nothing says a new message is needed, nor a placeholder for the workspace.
    expect(failed.stderr).not.toContain('Retry it with');
    expect(failed.stderr).not.toContain(' -m ');
    expect(failed.stderr).not.toContain('<workspace>');
    const resumed = await runDelta(['continue', '-w', work], { env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Back again.\n');
  });
});
