// Tool-call arguments nested far deeper than any tool takes: the response around them is shallow, so the
// wire's depth limit does not see them; parsed, they overflowed the stack in the journal's and redaction's
// walks, failing the run and every `delta continue` after it.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { continueRun, loadAgent, startRun } from './index.js';

const HANG_SERVER = join(import.meta.dirname, '../../mcp/test/hang-server.mjs');

afterEach(cleanupTestResources);

describe('arguments nested 100,000 deep', () => {
  it('are an observation for an MCP tool and a native one, and the run goes on and continues', async () => {
    const deep = `{"text": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const agent = loadAgent(
      await createTempAgent({
        agentYaml: {
          name: 'deep',
          llm: { model: 'm' },
          ask_human: false,
          sandbox: { mode: 'off' },
          tools: [{ name: 'say', description: 'Says a text.', exec: 'echo -- ${text}' }],
          mcp_servers: [{ name: 'hang', command: process.execPath, args: [HANG_SERVER] }],
        },
      }),
    );
    const server = await startFakeLlm({
      script: [
        {
          tool_calls: [
            { name: 'mcp__hang__echo', raw_arguments: deep },
            { name: 'say', raw_arguments: deep },
          ],
        },
        { content: 'went on' },
        { content: 'continued' },
      ],
    });
    const workDir = join(await createTempDir('deep-'), 'w');
    const result = await startRun({ agent, message: 'go', workDir, apiKey: 'k', baseUrl: server.baseUrl });
    expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'went on' });
    const observations = readJournal(result.paths.journal)
      .filter((event) => event.type === 'ACTION_RESULT')
      .map((event) => (event as { observation_content: string }).observation_content);
    expect(observations).toEqual([
      expect.stringMatching(/^Error: the arguments nest more than 256 levels deep; no tool takes that: \{"text": \[\[\[/),
      expect.stringMatching(/^Error: the arguments nest more than 256 levels deep/),
    ]);
    const resumed = await continueRun({ workDir, message: 'again', apiKey: 'k', baseUrl: server.baseUrl });
    expect(resumed).toMatchObject({ status: 'COMPLETED', finalAnswer: 'continued' });
  });
});
