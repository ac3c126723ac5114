// An image cache this user may not write (root's, given to nobody through DELTA_IMAGE_CACHE): `delta batch`
// says so, naming the cache, DELTA_IMAGE_CACHE and the fix, instead of Node's bare "EACCES: permission
// denied, mkdir". Found by following docs/environments.md as a new user. Real umoci image, real nobody.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTestResources, createTempAgent, runProcess } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../../packages/images/src/image.test-support.js';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const nobody = identities().find((identity) => identity.name === 'nobody');
const unavailable =
  imageToolsMissing ?? (nobody === undefined ? 'this test process is not root: no other user to test' : nobody.unavailable);
if (unavailable) console.warn(`\n!!!!!!!!\n!!! SKIPPING the image cache owner test: ${unavailable}.\n!!!!!!!!\n`);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

describe.skipIf(unavailable !== undefined)('an image cache another user owns', () => {
  it('as nobody, over root\'s cache: "the image cache ... cannot be written by this user", with DELTA_IMAGE_CACHE in the fix', async () => {
    // Outside /tmp, readable by nobody; the cache root's own, mode 0700.
    const base = mkdtempSync(join('/var/tmp', 'delta-cache-owner-'));
    dirs.push(base);
    chmodSync(base, 0o777);
    buildImage(join(base, 'layout'), 'v1', (rootfs) => writeFileSync(join(rootfs, 'hello'), 'hi\n'));
    spawnSync('chmod', ['-R', 'a+rX', base]);
    const cache = join(base, 'cache');
    mkdirSync(cache, { mode: 0o700 });
    const agent = await createTempAgent({
      agentYaml: { name: 'img', llm: { model: 'm', max_retries: 0 }, tools: [{ name: 'hello', description: 'x', exec: 'cat /hello' }] },
    });
    chmodSync(agent, 0o755);
    writeFileSync(join(base, 'tasks.jsonl'), `${JSON.stringify({ id: 't', message: 'hello', image: 'layout:v1' })}\n`);
    const env = { ...process.env, DELTA_IMAGE_CACHE: cache, HOME: base, DELTA_API_KEY: 'sk-test' };
    const out = join(base, 'out');
    const result = await runProcess(
      nobody!.prefix[0]!,
      [...nobody!.prefix.slice(1), process.execPath, DELTA_BIN, 'batch', join(base, 'tasks.jsonl'), '--agent', agent, '--out', out],
      { env },
    );
    expect(result.stderr).toContain(
      `The image of the task "t", named in ${join(base, 'tasks.jsonl')} ("image"): The image cache ${cache} cannot be written by this user: Cannot write ${cache}/images: permission denied (EACCES).`,
    );
    expect(result.stderr).toContain('set DELTA_IMAGE_CACHE to a directory of your own');
    expect(result.exitCode).toBe(1);
  }, 120_000);
});
