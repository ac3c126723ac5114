// A batch in images (issue 43): each task names its image (or the batch's), every image is pinned to its
// digest in OUT/.batch/definition.json before any run, each run's ENGINE_START records it, and the same
// batch again with an image changed under the same name is BATCH_CHANGED. Real bubblewrap, overlay, umoci.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, runPaths } from '@delta/journal';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../images/src/image.test-support.js';
import { readBatchDefinition } from './batch-definition.js';
import { runBatch } from './index.js';

const noBubblewrap = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the batch image tests: ${noBubblewrap}.\n!!!!!!!!\n`);

afterEach(cleanupTestResources);

describe.skipIf(skip !== undefined)('a batch whose tasks run in images', () => {
  it('pins each image to its digest, runs each task in its own, and refuses the batch again once an image changed', async () => {
    const base = await createTempDir('batch-images-');
    const layout = join(base, 'images');
    for (const tag of ['a', 'b']) buildImage(layout, tag, (rootfs) => writeFileSync(join(rootfs, 'which'), `image ${tag}\n`));
    const tasks = join(base, 'tasks.jsonl');
    writeFileSync(
      tasks,
      `${JSON.stringify({ id: 't-a', message: 'which', image: 'images:a' })}\n${JSON.stringify({ id: 't-b', message: 'which', image: 'images:b', workdir: '/data' })}\n`,
    );
    const agent = await createTempAgent({
      agentYaml: { name: 'which', llm: { model: 'm', max_retries: 0 }, tools: [{ name: 'which', description: 'x', exec: 'cat /which' }] },
    });
    const server = await startFakeLlm({
      script: (request) =>
        (request.body as { messages: Array<{ role: string }> }).messages.some((message) => message.role === 'tool')
          ? { content: 'done' }
          : { tool_calls: [{ name: 'which', arguments: {} }] },
    });
    const out = join(base, 'out');
    const options = { tasksFile: tasks, agent, out, apiKey: 'sk-test', baseUrl: server.baseUrl, imageCache: join(base, 'cache') };
    const summary = await runBatch(options);
    expect(summary.completed).toBe(2);
    const pinned = readBatchDefinition(out)!.images!;
    expect(Object.keys(pinned).sort()).toEqual([`${layout}:a`, `${layout}:b`]);
    for (const [task, tag] of [
      ['t-a', 'a'],
      ['t-b', 'b'],
    ] as const) {
      const events = readJournal(runPaths(join(out, task, 'm', '1'), 'run-1').journal);
      expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({
        sandbox: {
          image: { reference: `${layout}:${tag}`, digest: pinned[`${layout}:${tag}`], workdir: tag === 'b' ? '/data' : '/workspace' },
        },
      });
      expect(events.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({ observation_content: `image ${tag}` });
    }

    buildImage(layout, 'a', (rootfs) => writeFileSync(join(rootfs, 'which'), 'image a, changed\n'), { from: 'a' });
    await expect(runBatch(options)).rejects.toMatchObject({
      code: 'BATCH_CHANGED',
      message: expect.stringContaining(`${layout}:a is now sha256:`),
    });
    expect(readFileSync(join(out, '.batch', 'definition.json'), 'utf8')).toContain(pinned[`${layout}:a`]!);
  }, 120_000);

  it('names the tasks and the TASKS file of an image it cannot read, and keeps no batch, so the fixed command starts afresh', async () => {
    const base = await createTempDir('batch-images-');
    buildImage(join(base, 'images'), 'a', (rootfs) => writeFileSync(join(rootfs, 'which'), 'image a\n'));
    const tasks = join(base, 'tasks.jsonl');
    const lines = (tag: string) =>
      ['t-1', 't-2'].map((id) => `${JSON.stringify({ id, message: 'which', image: `images:${tag}` })}\n`).join('');
    writeFileSync(tasks, lines('missing'));
    const agent = await createTempAgent({
      agentYaml: { name: 'which', llm: { model: 'm', max_retries: 0 }, tools: [{ name: 'which', description: 'x', exec: 'cat /which' }] },
    });
    const server = await startFakeLlm({
      script: (request) =>
        (request.body as { messages: Array<{ role: string }> }).messages.some((message) => message.role === 'tool')
          ? { content: 'done' }
          : { tool_calls: [{ name: 'which', arguments: {} }] },
    });
    const out = join(base, 'out');
    const options = { tasksFile: tasks, agent, out, apiKey: 'sk-test', baseUrl: server.baseUrl, imageCache: join(base, 'cache') };
    await expect(runBatch(options)).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
      file: tasks,
      field: 'image',
      message: `The image of the task "t-1" (and 1 more: t-2), named in ${tasks} ("image"): ${join(base, 'images')}:missing has no image tagged missing (tags: a)`,
    });
    expect(existsSync(join(out, '.batch', 'definition.json'))).toBe(false);

    writeFileSync(tasks, lines('a'));
    const summary = await runBatch(options);
    expect(summary.completed).toBe(2);
  }, 120_000);
});
