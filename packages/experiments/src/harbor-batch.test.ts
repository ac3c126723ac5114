// A batch over a directory of Harbor task directories (issue 44 item 2): its definition records a hash of
// every task's files, so that a task edited after the batch started is BATCH_CHANGED, naming it; and a
// whole batch runs, each task in the image --image-map gives it (real bubblewrap, overlay, umoci).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, runPaths } from '@delta/journal';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../images/src/image.test-support.js';
import { createNoteAgent } from './batch-fixture.test-support.js';
import { readBatchDefinition } from './batch-definition.js';
import { goodTaskFiles, writeHarborTask } from './harbor-tasks.test-support.js';
import { openBatch, prepareBatch, runBatch } from './index.js';

afterEach(cleanupTestResources);

describe('a batch over Harbor task directories', () => {
  it('is refused before anything runs when one task is broken, naming it, its files and fields', async () => {
    const root = await createTempDir('harbor-');
    writeHarborTask(root, 'good-1', goodTaskFiles('good-1'));
    writeHarborTask(root, 'good-2', goodTaskFiles('good-2'));
    writeHarborTask(root, 'broken', {
      'instruction.md': '',
      'task.toml': '[agent]\ntimeout_sec = "x"\n[environment]\ndocker_image = "r.lab/x:1"\n',
    });
    const out = join(await createTempDir(), 'out');
    const agent = await createNoteAgent();
    expect(() => prepareBatch({ tasksFile: root, agent, out })).toThrow(
      expect.objectContaining({
        code: 'DATASET_INVALID',
        message: expect.stringMatching(
          /has 3 configuration errors:[\s\S]*broken\/instruction\.md: the task "broken": instruction\.md is empty[\s\S]*broken\/task\.toml \(agent\.timeout_sec\): the task "broken"[\s\S]*broken\/tests\/test\.sh: the task "broken": there is no tests\/test\.sh/,
        ),
      }),
    );
    // Nothing ran: OUT was not even made.
    expect(existsSync(out)).toBe(false);
  });

  it('records a hash of every task, and refuses the batch again once a task changed, naming it', async () => {
    const root = await createTempDir('harbor-');
    for (const id of ['a', 'b', 'c']) writeHarborTask(root, id, goodTaskFiles(id));
    const agent = await createNoteAgent();
    const out = join(await createTempDir(), 'out');
    const spec = { tasksFile: root, agent, out };
    prepareBatch(spec).release();
    const definition = readBatchDefinition(out)!;
    expect(definition).toMatchObject({ tasks_file: root, task_ids: ['a', 'b', 'c'] });
    expect(Object.keys(definition.task_sha256!)).toEqual(['a', 'b', 'c']);
    // The same tasks again: the same batch, resumed.
    prepareBatch(spec).release();
    // A file that is none of instruction.md, task.toml, tests/ or solution/ is not the task.
    appendFileSync(join(root, 'b', 'environment', 'notes.txt'), 'x');
    prepareBatch(spec).release();

    appendFileSync(join(root, 'b', 'tests', 'test.sh'), 'echo planted\n');
    for (const again of [() => prepareBatch(spec), () => openBatch(out)]) {
      let error: unknown;
      try {
        again();
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({
        code: 'BATCH_CHANGED',
        message: expect.stringContaining('the task "b" changed since the batch started'),
      });
      expect((error as Error).message).not.toMatch(/the task "[ac]"/);
    }
    writeHarborTask(root, 'd', goodTaskFiles('d'));
    expect(() => prepareBatch(spec)).toThrow(/the task "d" is new in/);
  });
});

describe.skipIf(imageToolsMissing !== undefined || process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE !== undefined)(
  'a batch over Harbor task directories, in images',
  () => {
    it('runs each task in the image the image map gives it, by name and by Dockerfile hash', async () => {
      const base = await createTempDir('harbor-images-');
      for (const tag of ['named', 'hashed'])
        buildImage(join(base, 'images'), tag, (rootfs) => writeFileSync(join(rootfs, 'which'), `image ${tag}\n`));
      const root = join(base, 'tasks');
      const dockerfile = 'FROM debian:bookworm\nRUN echo hashed\n';
      writeHarborTask(root, 'by-name', goodTaskFiles('by-name', { 'instruction.md': 'which' }));
      writeHarborTask(
        root,
        'by-hash',
        goodTaskFiles('by-hash', {
          'instruction.md': 'which',
          'task.toml': '[agent]\ntimeout_sec = 60.0\n',
          'environment/Dockerfile': dockerfile,
        }),
      );
      const hash = createHash('sha256').update(dockerfile).digest('hex');
      const imageMap = join(base, 'images.yaml');
      writeFileSync(imageMap, `by-name: images:named\n"sha256:${hash}": images:hashed\n`);
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
      const options = {
        tasksFile: root,
        imageMap,
        agent,
        out,
        apiKey: 'sk-test',
        baseUrl: server.baseUrl,
        imageCache: join(base, 'cache'),
      };
      expect((await runBatch(options)).completed).toBe(2);
      expect(readBatchDefinition(out)!.image_map).toMatchObject({ file: imageMap });
      for (const [task, tag] of [
        ['by-name', 'named'],
        ['by-hash', 'hashed'],
      ] as const) {
        const events = readJournal(runPaths(join(out, task, 'm', '1'), 'run-1').journal);
        expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({
          sandbox: { image: { reference: `${join(base, 'images')}:${tag}` } },
        });
        expect(events.find((event) => event.type === 'ACTION_RESULT')).toMatchObject({ observation_content: `image ${tag}` });
      }
      // Another image map is another batch.
      writeFileSync(imageMap, `by-name: images:hashed\n"sha256:${hash}": images:hashed\n`);
      await expect(runBatch(options)).rejects.toMatchObject({ code: 'BATCH_CHANGED', message: expect.stringContaining('--image-map:') });
    }, 120_000);
  },
);
