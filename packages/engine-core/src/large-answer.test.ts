import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, scriptFromRun, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, replayRun, startRun } from './index.js';

// A large argument is stored once, in the journal's THOUGHT: response.json and ACTION_REQUEST say where it is.

const BYTES = 300_000;

afterEach(cleanupTestResources);

function occurrences(text: string, piece: string): number {
  let count = 0;
  for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + piece.length)) count += 1;
  return count;
}

describe('a large answer', () => {
  for (const stream of [false, true]) {
    it(`keeps ${stream ? 'streamed' : 'JSON'} tool arguments of ${BYTES} bytes once, in the THOUGHT`, async () => {
      const server = await startFakeLlm({
        script: [{ large: { bytes: BYTES, in: 'arguments', tool: 'write_file' } } as ScriptStep, { content: 'written' }],
      });
      const agent = loadAgent(
        await createTempAgent({
          agentYaml: {
            name: 'large',
            llm: { model: 'm', max_retries: 0, ...(stream ? { stream: true } : {}) },
            tools: [{ name: 'write_file', description: 'Count the bytes of data', exec: 'wc -c', stdin: 'data' }],
          },
        }),
      );
      const workDir = join(await createTempDir('large-'), 'w');
      const result = await startRun({ agent, message: 'write', workDir, apiKey: 'k', baseUrl: server.baseUrl });
      expect(result).toMatchObject({ status: 'COMPLETED', finalAnswer: 'written' });

      // The tool got every byte.
      const [execution] = readdirSync(result.paths.toolExecutionsDir);
      expect(readFileSync(join(result.paths.toolExecutionsDir, execution!, 'stdout.log'), 'utf8').trim()).toBe(String(BYTES));

      const filler = 'x'.repeat(BYTES);
      const journalText = readFileSync(result.paths.journal, 'utf8');
      expect(occurrences(journalText, filler)).toBe(1);
      const events = readJournal(result.paths.journal);
      const thought = events.find((event) => event.type === 'THOUGHT');
      if (thought?.type !== 'THOUGHT') throw new Error('no THOUGHT in the journal');
      const request = events.find((event) => event.type === 'ACTION_REQUEST');
      expect(thought.tool_calls[0]!.arguments).toBe(`{"data":"${filler}"}`);
      expect(request).toMatchObject({ tool_name: 'write_file', tool_args_in_thought: true });
      expect(request).not.toHaveProperty('tool_args');

      const invocation = join(result.paths.invocationsDir, thought.llm_invocation_ref);
      const response = readFileSync(join(invocation, 'response.json'), 'utf8');
      expect(occurrences(response, filler)).toBe(0);
      const bytes = BYTES + '{"data":""}'.length;
      expect(JSON.parse(response).choices[0].message.tool_calls[0].function.arguments).toBe(
        `<delta: ${bytes} bytes kept once, in journal.jsonl: THOUGHT with llm_invocation_ref ${thought.llm_invocation_ref}, tool_calls[0].arguments>`,
      );
      expect(JSON.parse(readFileSync(join(invocation, 'metadata.json'), 'utf8'))).toMatchObject({
        status: 'SUCCESS',
        stream,
        stored_in_journal: [{ path: 'choices[0].message.tool_calls[0].function.arguments', bytes, journal: 'tool_calls[0].arguments' }],
      });

      // A replay serves the whole answer, put back from the THOUGHT, and a script made from the run holds it too.
      const replayed = await replayRun({ source: { workDir }, tools: 'recorded' });
      expect(replayed.divergence).toBeUndefined();
      expect(replayed).toMatchObject({ identical: true, iterations: 2 });
      const replayThought = readJournal(replayed.replay.paths.journal).find((event) => event.type === 'THOUGHT');
      expect(replayThought?.type === 'THOUGHT' && replayThought.tool_calls[0]!.arguments).toBe(`{"data":"${filler}"}`);
      expect(scriptFromRun(result.paths.runDir)[0]!.tool_calls![0]!.raw_arguments).toBe(`{"data":"${filler}"}`);
    });
  }
});
