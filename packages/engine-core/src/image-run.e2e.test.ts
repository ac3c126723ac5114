// A run in an OCI image (issue 43): agent.yaml's sandbox.image names a layout built here with umoci; the
// tools run with the image as /, the workspace at its workdir, their changes outside it in the run's own
// layer; ENGINE_START records the image's digest; `delta continue` goes on in the same image and layer, and
// refuses an image changed under the same name. Real bubblewrap and overlay, as this test's user.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listLayerChanges, probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../images/src/image.test-support.js';
import { continueRun, loadAgent, startRun } from './index.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the image run tests: ${noBubblewrap}.\n!!!!!!!!\n`);

afterEach(cleanupTestResources);

describe.skipIf(skip !== undefined)('a run in an image (real bubblewrap, overlay and umoci)', () => {
  it('runs its tools in the image, keeps their changes in its layer, and continues in the image it recorded', async () => {
    const base = await createTempDir('image-run-');
    const layout = buildImage(
      join(base, 'layout'),
      'v1',
      (rootfs) => {
        mkdirSync(join(rootfs, 'testbed'));
        writeFileSync(join(rootfs, 'testbed', 'app.py'), 'print(1)\n');
        mkdirSync(join(rootfs, 'etc'), { recursive: true });
        writeFileSync(join(rootfs, 'etc', 'image-release'), 'testbed image v1\n');
      },
      { workdir: '/testbed', env: ['PATH=/bin', 'IMAGE_VAR=from-the-image'] },
    );
    const home = await createTempAgent({
      agentYaml: {
        name: 'in-image',
        llm: { model: 'm', max_retries: 0 },
        sandbox: { image: `${layout}:v1`, workdir: '/workspace' },
        tools: [{ name: 'sh', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
      },
    });
    const call = (script: string) => ({ tool_calls: [{ name: 'sh', arguments: { script } }] });
    const server = await startFakeLlm({
      script: [
        call('pwd; cat /etc/image-release /testbed/app.py; echo "$IMAGE_VAR $DELTA_CWD"; test -e /etc/debian_version || echo no-host'),
        call('echo fixed > /testbed/app.py; echo kept > /workspace/result.txt'),
        { content: 'done' },
        call('cat /testbed/app.py'),
        { content: 'done again' },
      ],
    });
    const workDir = await createTempDir('image-run-work-');
    const imageCache = join(base, 'cache');
    const options = { apiKey: 'sk-test', baseUrl: server.baseUrl, sandbox: { imageCache } };
    const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, ...options });
    expect(result.status).toBe('COMPLETED');
    const events = readJournal(result.paths.journal);
    const start = events.find((event) => event.type === 'ENGINE_START') as { sandbox: { image: Record<string, string> } };
    expect(start.sandbox.image).toMatchObject({
      reference: `${layout}:v1`,
      digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      workdir: '/workspace',
      user: '0:0',
    });
    const observations = events.flatMap((event) => (event.type === 'ACTION_RESULT' ? [event.observation_content] : []));
    expect(observations[0]).toBe('/workspace\ntestbed image v1\nprint(1)\nfrom-the-image /workspace\nno-host');
    expect(readFileSync(join(workDir, 'result.txt'), 'utf8')).toBe('kept\n');
    const layer = join(result.paths.runDir, 'layer');
    expect(listLayerChanges(layer).changes).toEqual([{ path: '/testbed/app.py', change: 'written' }]);

    // Continued: the same image (found by its digest) over the same layer.
    const continued = await continueRun({ workDir, message: 'again', ...options });
    expect(continued.status).toBe('COMPLETED');
    const later = readJournal(result.paths.journal).flatMap((event) => (event.type === 'ACTION_RESULT' ? [event.observation_content] : []));
    expect(later.at(-1)).toBe('fixed');

    // The image changed under the same name: the run is not continued in another image.
    buildImage(layout, 'v1', (rootfs) => writeFileSync(join(rootfs, 'etc', 'image-release'), 'v2\n'), { from: 'v1', workdir: '/testbed' });
    const cacheOfNothing = join(base, 'empty-cache');
    await expect(continueRun({ workDir, message: 'once more', ...options, sandbox: { imageCache: cacheOfNothing } })).rejects.toMatchObject(
      {
        code: 'IMAGE_DIGEST_MISMATCH',
        message: expect.stringContaining(start.sandbox.image.digest!),
      },
    );
    expect(existsSync(join(cacheOfNothing, 'roots'))).toBe(false);
  }, 120_000);

  it("shows none of this machine's /tmp for the programs on the tools' PATH, which cannot run on the image's root", async () => {
    const base = await createTempDir('image-run-path-');
    const layout = buildImage(join(base, 'layout'), 'v1', () => {}, { env: ['PATH=/bin'] });
    // A clone under /tmp whose bin/ is on the PATH (as the CLI puts its own), with a task's solution beside it.
    const clone = await createTempDir('image-run-clone-');
    mkdirSync(join(clone, 'bin'));
    writeFileSync(join(clone, 'solution.sh'), 'the answer\n');
    const home = await createTempAgent({
      agentYaml: {
        name: 'in-image',
        llm: { model: 'm', max_retries: 0 },
        sandbox: { image: `${layout}:v1` },
        tools: [{ name: 'sh', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
      },
    });
    const server = await startFakeLlm({
      script: [
        { tool_calls: [{ name: 'sh', arguments: { script: `cat ${clone}/solution.sh 2>&1 || echo hidden` } }] },
        { content: 'done' },
      ],
    });
    const result = await startRun({
      agent: loadAgent(home),
      message: 'go',
      workDir: await createTempDir('image-run-path-work-'),
      apiKey: 'sk-test',
      baseUrl: server.baseUrl,
      environment: { ...process.env, PATH: `${join(clone, 'bin')}:${process.env.PATH}` },
      sandbox: { imageCache: join(base, 'cache') },
    });
    expect(result.status).toBe('COMPLETED');
    const observation = readJournal(result.paths.journal).find((event) => event.type === 'ACTION_RESULT');
    expect(observation).toMatchObject({ observation_content: expect.stringMatching(/No such file or directory\nhidden$/) });
  }, 120_000);

  it('leaves no run behind when its image cannot be had', async () => {
    const home = await createTempAgent({
      agentYaml: { name: 'in-image', llm: { model: 'm', max_retries: 0 }, sandbox: { image: '/nonexistent/image:v1' } },
    });
    const workDir = await createTempDir('image-run-missing-');
    await expect(
      startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: 'http://127.0.0.1:9/v1' }),
    ).rejects.toMatchObject({
      code: 'IMAGE_NOT_FOUND',
    });
    // No run directory for `delta list` to call unreadable, no LATEST for `delta continue -w` to follow.
    expect(existsSync(join(workDir, '.delta'))).toBe(false);
  }, 60_000);
});
