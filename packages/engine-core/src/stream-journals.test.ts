import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, SERVER_PROFILES, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { loadAgent, startRun, type ModelDelta } from './index.js';

// The same script, streamed and not, under every server profile: journals equal but for timings and
// the ids the engine makes (run, invocations); response.json in the same shape, the stream kept beside it.

afterEach(cleanupTestResources);

const script: ScriptStep[] = [
  {
    content: 'I will look at both files.',
    tool_calls: [
      { name: 'show', arguments: { text: 'first, with "quotes" and ünïcode' } },
      { name: 'show', arguments: { text: 'second' } },
    ],
    usage: { prompt_tokens: 120, completion_tokens: 30 },
  },
  { tool_calls: [{ name: 'show', arguments: { text: 'third' } }] },
  { content: 'Both files say hello.\nDone.' },
];

/**
 * What differs between two runs of one script: when things happened and how long they took, where (the
 * fake server's port too), and the ids the engine makes.
 */
const VARYING = new Set([
  'agent_home',
  'timestamp',
  'duration_ms',
  'started_at',
  'pid',
  'run_id',
  'work_dir',
  'start_time',
  'end_time',
  'base_url',
]);

async function run(profile: string, stream: boolean) {
  const server = await startFakeLlm({ script, profile });
  const agent = loadAgent(
    await createTempAgent({
      agentYaml: {
        name: 'equal',
        llm: { model: 'm', max_retries: 0, ...(stream ? { stream: true } : {}) },
        tools: [{ name: 'show', description: 'Print text', exec: 'printf %s ${text}' }],
      },
    }),
  );
  const workDir = join(await createTempDir('equal-'), 'w');
  const deltas: ModelDelta[] = [];
  const result = await startRun({
    agent,
    message: 'Read both files',
    workDir,
    apiKey: 'k',
    baseUrl: server.baseUrl,
    onModelDelta: (delta) => deltas.push(delta),
  });
  await server.close();
  expect({ status: result.status, reason: result.reason, finalAnswer: result.finalAnswer }).toMatchObject({
    status: 'COMPLETED',
    finalAnswer: 'Both files say hello.\nDone.',
  });
  const invocations = readdirSync(result.paths.invocationsDir).sort();
  let text = readFileSync(result.paths.journal, 'utf8');
  // Invocation ids are random: each stands for its number in the run.
  for (const [index, id] of invocations.entries()) text = text.replaceAll(id, `<invocation ${index + 1}>`);
  const journal = text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line, (key, value) => (VARYING.has(key) ? '<varies>' : value)));
  // ENGINE_START records the configuration, and llm.stream is the one setting the two runs differ by.
  const start = journal.find((event) => event.type === 'ENGINE_START');
  expect(start.config.llm.stream).toBe(stream ? true : undefined);
  delete start.config.llm.stream;
  // agent.yaml differs by that setting, so the agent's fingerprint differs too.
  expect(start.agent_fingerprint.files.map((file: { path: string }) => file.path)).toContain('agent.yaml');
  delete start.agent_fingerprint;
  const responses = invocations.map(
    (id): Completion => JSON.parse(readFileSync(join(result.paths.invocationsDir, id, 'response.json'), 'utf8')),
  );
  const streams = invocations.map((id) => readdirSync(join(result.paths.invocationsDir, id)).includes('response.sse'));
  return { journal, responses, streams, deltas };
}

interface Completion {
  object: string;
  choices: Array<{ message: { role: string; content: unknown; tool_calls?: Array<{ function: { name: string; arguments: unknown } }> } }>;
}

/** The answer in a chat completion: its text and its calls (not the ids, times and empty fields a server adds). */
function answerOf(response: Completion) {
  const { role, content, tool_calls: calls } = response.choices[0]!.message;
  return { role, content, calls: (calls ?? []).map((call) => [call.function.name, call.function.arguments]) };
}

describe('a script run streamed and not', () => {
  // Not gemini: that server itself answers differently when it streams (calls with empty ids, finish_reason
  // "stop") and signs each call at random, so its journals differ by what it sent; model-wire's tests cover
  // its streams, and examples/test runs every example under it.
  for (const profile of SERVER_PROFILES.map((each) => each.name).filter((name) => name !== 'gemini')) {
    it(`gives equal journals under the ${profile} profile`, async () => {
      const plain = await run(profile, false);
      const streamed = await run(profile, true);
      expect(streamed.journal).toEqual(plain.journal);
      expect(plain.streams).toEqual([false, false, false]);
      expect(streamed.streams).toEqual([true, true, true]);
      expect(plain.deltas).toEqual([]);
      // The assembled response.json has the non-streamed shape: the same message, call for call.
      for (const [index, response] of streamed.responses.entries()) {
        expect(answerOf(response)).toEqual(answerOf(plain.responses[index]!));
        expect(response.object).toBe('chat.completion');
      }
      // The library heard the answer as it came: the texts, and each call's name and arguments.
      const text = (iteration: number) =>
        streamed.deltas
          .filter((delta) => delta.iteration === iteration && delta.type === 'content')
          .map((delta) => (delta.type === 'content' ? delta.text : ''))
          .join('');
      expect(text(1)).toBe('I will look at both files.');
      expect(text(3)).toBe('Both files say hello.\nDone.');
      const calls = streamed.deltas.filter((delta) => delta.iteration === 1 && delta.type === 'tool_call');
      expect(new Set(calls.map((delta) => (delta.type === 'tool_call' ? delta.index : -1)))).toEqual(new Set([0, 1]));
    });
  }
});
