import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readJournal, readMetadata } from '@delta/journal';
import { runDelta } from './test-support.js';
import { latestRunDir, startDelta } from './test-processes.test-support.js';

// A response too large for memory is capped; one that trickles in for minutes is stopped by the first
// SIGTERM, leaving a run that `delta continue` resumes by sending the same request again.

afterEach(cleanupTestResources);

/** 30 MB of text, 16 KiB every 20 ms: about 40 s, far longer than the test waits. */
const trickle = { large: { bytes: 30_000_000, in: 'content', chunk_bytes: 16_384, chunk_delay_ms: 20 } } as const;

// Steps as written (startFakeLlm fills in their defaults).
async function setup(llm: Record<string, unknown>, script: object[]) {
  const server = await startFakeLlm({ script: script as ScriptStep[] });
  const agent = await createTempAgent({ agentYaml: { name: 'huge', llm: { model: 'm', max_retries: 0, ...llm } } });
  const work = join(await createTempDir('huge-'), 'w');
  const env = modelEnv(server);
  return { agent, work, env, server };
}

function invocationDirs(work: string): string[] {
  const dir = join(latestRunDir(work)!, 'io', 'invocations');
  return readdirSync(dir)
    .sort()
    .map((name) => join(dir, name));
}

describe('huge responses', () => {
  for (const stream of [false, true]) {
    it(`a first SIGTERM stops an engine receiving a huge ${stream ? 'streamed' : 'JSON'} response; delta continue resumes it`, async () => {
      const { agent, work, env, server } = await setup(stream ? { stream: true } : {}, [trickle, { content: 'short this time' }]);
      const running = startDelta(['run', '--agent', agent, '-m', 'Say a lot', '-w', work], env);
      // The signal comes once the answer is arriving: the server has the request (and for a stream, the
      // engine has written the first bytes of the answer to response.sse).
      await vi.waitFor(
        () => {
          expect(server.requests).toHaveLength(1);
          if (stream) {
            const sse = join(invocationDirs(work)[0]!, 'response.sse');
            expect(existsSync(sse) && statSync(sse).size > 0).toBe(true);
          }
        },
        { timeout: 20_000, interval: 5 },
      );
      running.child.kill('SIGTERM');
      const stopped = await running.done;
      expect(stopped.exitCode).toBe(130);
      expect(stopped.stderr).toContain(`Resume it with: delta continue -w ${work}`);
      expect(readMetadata(join(latestRunDir(work)!, 'metadata.json'))).toMatchObject({ status: 'INTERRUPTED', exit_code: 130 });
      const [first] = invocationDirs(work);
      expect(JSON.parse(readFileSync(join(first!, 'metadata.json'), 'utf8'))).toMatchObject({ status: 'FAILED', stream });
      expect(readJournal(join(latestRunDir(work)!, 'journal.jsonl')).some((event) => event.type === 'THOUGHT')).toBe(false);

      const resumed = await runDelta(['continue', '-w', work], { env });
      expect(resumed.exitCode).toBe(0);
      expect(resumed.stdout).toContain('short this time');
      // The same request again, byte for byte: the interrupted answer left nothing in the conversation.
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.rawBody).toBe(server.requests[0]!.rawBody);
    });
  }

  it('fails a response larger than llm.max_response_bytes with a clear error naming the endpoint, the cap and the setting, not retried; a plain continue resumes it once the cap is raised', async () => {
    const { agent, work, env, server } = await setup({ max_response_bytes: 1_048_576, max_retries: 2 }, [
      { large: { bytes: 3_000_000, in: 'arguments', tool: 'write_file' } },
      { content: 'small' },
    ]);
    const result = await runDelta(['run', '--agent', agent, '-m', 'Write a lot', '-w', work], { env });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`The model endpoint ${server.baseUrl}/chat/completions sent a response larger than the 1 MiB limit`);
    expect(result.stderr).toContain('Raise llm.max_response_bytes in agent.yaml');
    // One way forward: the same request again once the cap is raised, with no new message.
    expect(result.stderr).toContain(`Then \`delta continue -w ${work}\` sends the same request again.`);
    expect(result.stderr).not.toContain('Retry it with');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(server.requests).toHaveLength(1);
    const journal = readJournal(join(latestRunDir(work)!, 'journal.jsonl'));
    expect(journal.find((event) => event.type === 'ERROR')).toMatchObject({ error_code: 'MODEL_RESPONSE_TOO_LARGE', transient: true });

    // Once the cap is raised, a plain continue sends the same request again.
    const agentYaml = join(agent, 'agent.yaml');
    writeFileSync(agentYaml, readFileSync(agentYaml, 'utf8').replace('max_response_bytes: 1048576', 'max_response_bytes: 8388608'));
    const resumed = await runDelta(['continue', '-w', work], { env });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toContain('small');
    expect(server.requests[1]!.rawBody).toBe(server.requests[0]!.rawBody);
  });
});
