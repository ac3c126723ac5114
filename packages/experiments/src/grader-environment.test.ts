// A command grader gets the allow-list the agent's tools get (agent.yaml's sandbox.env), and never a
// model key, DELTA_QUEUE, nor a second variable holding a key's value (issue 42, items 6 and 8).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runPaths } from '@delta/journal';
import { cleanupTestResources, createTempDir, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createNoteAgent, noteScript, writeTasks } from './batch-fixture.test-support.js';
import { gradeBatch } from './grade-batch.js';
import { graderHash } from './grade-store.js';
import { runBatch } from './run-batch.js';

afterEach(cleanupTestResources);

const KEY = 'sk-grader-env-test-0123456789';
// Printed: the grader's output is kept with its grade (grades/<hash>.grader/stdout.log); `.delta/` is read only to it.
const DUMP = 'env';
const USER = {
  GITHUB_TOKEN: 'ghp_grader_token_0123',
  DELTA_QUEUE: 'redis://:pw@127.0.0.1:1/0',
  MY_COPY: KEY,
};

async function gradedEnvironment(agentExtra: Record<string, unknown>, options: { apiKey?: string; environment: NodeJS.ProcessEnv }) {
  const llm = await startFakeLlm({ script: noteScript() });
  const agent = await createNoteAgent(agentExtra);
  const tasksFile = await writeTasks(1);
  const out = join(await createTempDir(), 'out');
  const summary = await runBatch({ tasksFile, agent, out, grader: DUMP, baseUrl: llm.baseUrl, ...options });
  expect(summary.completed).toBe(1);
  const runDir = runPaths(join(out, 't1', 'fake-model', '1'), 'run-1').runDir;
  return { out, runDir, text: readFileSync(join(runDir, 'grades', `${graderHash(DUMP)}.grader`, 'stdout.log'), 'utf8') };
}

describe("a command grader's environment", () => {
  it('is the core by default: no token of the user, no key, no DELTA_QUEUE, no copy of the key', async () => {
    const { text } = await gradedEnvironment({}, { environment: { ...process.env, ...USER, DELTA_API_KEY: KEY } });
    expect(text).toMatch(/^PATH=/m);
    expect(text).toMatch(/^DELTA_TASK_ID=t1$/m);
    expect(text).not.toMatch(/^(GITHUB_TOKEN|DELTA_QUEUE|MY_COPY|DELTA_API_KEY)=/m);
    expect(text).not.toContain(KEY);
  });

  it("follows the agent's sandbox.env: inherit: all gives it the user's token, but not a second variable holding the key given as an option", async () => {
    const { text } = await gradedEnvironment(
      { sandbox: { env: { inherit: 'all', set: { PINNED: 'yes' } } } },
      { apiKey: KEY, environment: { ...process.env, ...USER } },
    );
    expect(text).toMatch(/^GITHUB_TOKEN=ghp_grader_token_0123$/m);
    expect(text).toMatch(/^PINNED=yes$/m);
    expect(text).not.toMatch(/^(DELTA_QUEUE|MY_COPY)=/m);
    expect(text).not.toContain(KEY);
  });

  it('delta grade (gradeBatch) reads the sandbox.env of the agent too, and keeps a copy of the key in the environment out', async () => {
    const { out, runDir } = await gradedEnvironment({ sandbox: { env: { inherit: 'all' } } }, { apiKey: KEY, environment: process.env });
    await gradeBatch(out, { grader: `${DUMP}; true`, environment: { ...process.env, ...USER, DELTA_API_KEY: KEY } });
    const text = readFileSync(join(runDir, 'grades', `${graderHash(`${DUMP}; true`)}.grader`, 'stdout.log'), 'utf8');
    expect(text).toMatch(/^GITHUB_TOKEN=ghp_grader_token_0123$/m);
    expect(text).not.toMatch(/^(DELTA_QUEUE|MY_COPY|DELTA_API_KEY)=/m);
    expect(text).not.toContain(KEY);
  });
});
