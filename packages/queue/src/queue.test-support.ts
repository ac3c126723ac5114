// What the queue test files share: redis-server (or a loud skip), one test server per file, and a small recorded batch.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prepareBatch } from '@delta/experiments';
import { createTempAgent, createTempDir, redisUnavailable, startTestRedis, type TestRedis } from '@delta/testkit';

export const unavailable = redisUnavailable();
if (unavailable) console.warn(`\n!!! SKIPPED: the @delta/queue tests need redis-server: ${unavailable}\n`);

/** The file's Redis server: started by `startRedis` (a beforeAll), stopped by `stopRedis` (an afterAll). */
export let redis: TestRedis;

export async function startRedis(): Promise<void> {
  if (!unavailable) redis = await startTestRedis();
}

export async function stopRedis(): Promise<void> {
  await redis?.stop();
}

export async function smallBatch(out: string) {
  const agent = await createTempAgent({ agentYaml: { name: 'q', llm: { model: 'fake-model' }, tools: [] } });
  const tasks = join(await createTempDir(), 'tasks.jsonl');
  writeFileSync(tasks, `${JSON.stringify({ id: 'a', message: 'hi' })}\n${JSON.stringify({ id: 'b', message: 'ho' })}\n`);
  const batch = prepareBatch({ tasksFile: tasks, agent, out });
  // Recorded, as by `delta batch --queue`, which holds OUT's batch lock only while it records and enqueues.
  batch.release();
  return batch;
}
