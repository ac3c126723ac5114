// What the pause-and-resume e2e test files share: the testkit's model for each test (closed after it), an
// agent with a slow tool the test releases, and reading the latest run of a workspace.
import { join } from 'node:path';
import { expect } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { latestRunDir } from './test-processes.test-support.js';

export interface Message {
  role: string;
  content?: unknown;
  tool_call_id?: string;
}
export type Request = { body: { messages?: Message[] } };

/** The model server of the test (started by `setup`), closed by `closeServer` (an afterEach). */
export let server: FakeLlm | undefined;

export async function closeServer(): Promise<void> {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
}

const agentYaml = {
  name: 'pause-resume',
  llm: { model: 'm', max_retries: 0 },
  // Unsandboxed: the tool reports its process group, which inside the sandbox's PID namespace reads 0.
  sandbox: { mode: 'off' },
  tools: [
    {
      name: 'slow',
      description: 'Say which process group it runs in, wait for the test to release it, then leave a marker',
      // Runs until the test writes `release` (30 s at most), so no test depends on how fast the machine is.
      shell:
        'cut -d " " -f 5 /proc/$$/stat > group.tmp && mv group.tmp group; ' +
        'i=0; until [ -e release ] || [ $i -ge 600 ]; do sleep 0.05; i=$((i+1)); done; touch marker',
    },
  ],
};

export async function setup(script: (request: Request, index: number) => ScriptStep) {
  server = await startFakeLlm({ script });
  const agent = await createTempAgent({ agentYaml });
  const work = join(await createTempDir('pause-'), 'w');
  const env = modelEnv(server);
  return { agent, work, env };
}

export const messagesOf = (request: Request) => request.body.messages ?? [];
export const lastMessage = (request: Request) => messagesOf(request).at(-1)!;
export const journalOf = (work: string): JournalEvent[] => readJournal(join(latestRunDir(work)!, 'journal.jsonl'));
export const metadataOf = (work: string) => readMetadata(join(latestRunDir(work)!, 'metadata.json'));

export function expectConsistentJournal(events: readonly JournalEvent[]) {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const calls = events.flatMap((event) => (event.type === 'THOUGHT' ? event.tool_calls.map((call) => call.id) : []));
  expect(events.flatMap((event) => (event.type === 'ACTION_RESULT' ? [event.action_id] : []))).toEqual(calls);
  expect(server!.requests.filter((request) => request.status !== 200)).toEqual([]);
}
