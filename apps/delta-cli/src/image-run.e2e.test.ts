// `delta run --image` end to end (issue 43), as root and as nobody: the tools run in a busybox image built
// here with umoci (its /testbed at the image's root, the workspace at /workspace), over the run's own layer;
// `delta show run` lists what they changed outside the workspace; `delta images` lists the cache and prunes
// it; an engine killed with SIGKILL leaves no process behind and `delta continue` goes on in the same image.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, createTempAgent, createTempDir, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildImage, imageToolsMissing } from '../../../packages/images/src/image.test-support.js';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the delta run --image tests: ${noBubblewrap}.\n!!!!!!!!\n`);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

/** A directory outside /tmp (the sandbox's /tmp is its own), anyone may write. */
function shared(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o777);
  dirs.push(dir);
  return dir;
}

describe.skipIf(skip !== undefined)('delta run --image (real bubblewrap, overlay, umoci)', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: runs in the image, lists its changes, survives kill -9`,
      async () => {
        const base = shared('delta-image-run-');
        const layout = buildImage(
          join(base, 'layout'),
          'v1',
          (rootfs) => {
            mkdirSync(join(rootfs, 'testbed'));
            writeFileSync(join(rootfs, 'testbed', 'app.py'), 'print(1)\n');
            // What an image may try on its tools: a set-user-ID program, a link to / .
            mkdirSync(join(rootfs, 'usr', 'bin'), { recursive: true });
            writeFileSync(join(rootfs, 'usr', 'bin', 'su'), '#!/bin/sh\n', { mode: 0o4755 });
            chmodSync(join(rootfs, 'usr', 'bin', 'su'), 0o4755);
            symlinkSync('/', join(rootfs, 'escape'));
          },
          { workdir: '/testbed' },
        );
        spawnSync('chmod', ['-R', 'a+rX', base]);
        const cache = join(base, 'cache');
        mkdirSync(cache, { mode: 0o777 });
        chmodSync(cache, 0o777);
        const agent = await createTempAgent({
          agentYaml: {
            name: 'img',
            llm: { model: 'm', max_retries: 0 },
            tools: [{ name: 'sh', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
          },
        });
        chmodSync(agent, 0o755);
        const work = await createTempDir('image-run-work-');
        chmodSync(work, 0o777);
        const call = (script: string) => ({ tool_calls: [{ name: 'sh', arguments: { script } }] });
        const server = await startFakeLlm({
          script: [
            call(
              [
                'echo fixed > /testbed/app.py; rm /bin/wc; pwd; id -u',
                // Everything the sandbox promises holds in an image: no capability, the launcher out of reach, this
                // machine's files nowhere, the run's control plane out of sight, no set-user-ID bit from the image.
                'grep CapEff /proc/self/status > /workspace/seen.txt',
                'cat /proc/1/environ >/dev/null 2>&1 && echo launcher-reachable >> /workspace/seen.txt',
                'test -e /etc/debian_version -o -e /escape/etc/debian_version && echo host-visible >> /workspace/seen.txt',
                'ls -A /workspace/.delta >> /workspace/seen.txt',
                'test -u /usr/bin/su && echo setuid-kept >> /workspace/seen.txt; true',
              ].join('; '),
            ),
            call(`touch ${'/workspace'}/started; sleep 600`),
            call('cat /testbed/app.py'),
            { content: 'done' },
          ],
        });
        const env = { ...process.env, ...modelEnv(server), DELTA_IMAGE_CACHE: cache, HOME: base };
        const delta = (...args: string[]) => [...identity.prefix, process.execPath, DELTA_BIN, ...args];
        const [file, ...args] = delta(
          'run',
          '--agent',
          agent,
          '--image',
          `${layout}:v1`,
          '--workdir',
          '/workspace',
          '-m',
          'go',
          '-w',
          work,
        );
        const running = runProcess(file!, args, { env });
        await vi.waitFor(() => expect(existsSync(join(work, 'started'))).toBe(true), { timeout: 60_000, interval: 50 });
        // The engine killed in the middle of a call: nothing of its sandbox is left running.
        const engine = spawnSync('pgrep', ['-f', `${DELTA_BIN} run --agent ${agent}`], { encoding: 'utf8' })
          .stdout.trim()
          .split('\n');
        for (const pid of engine) if (pid) process.kill(Number(pid), 'SIGKILL');
        await running;
        await vi.waitFor(() => expect(spawnSync('pgrep', ['-f', 'sleep 600']).status).toBe(1), { timeout: 30_000, interval: 100 });
        expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(cache);

        const [cfile, ...cargs] = delta('continue', '-w', work);
        const continued = await runProcess(cfile!, cargs, { env });
        expect(continued.exitCode, continued.stderr).toBe(0);
        const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
        const journal = readFileSync(join(work, '.delta', runId, 'journal.jsonl'), 'utf8');
        expect(journal).toMatch(/"observation_content":"\/workspace\\n0/);
        expect(journal).toContain('"observation_content":"fixed"');

        expect(readFileSync(join(work, 'seen.txt'), 'utf8')).toBe('CapEff:\t0000000000000000\n');
        const [sfile, ...sargs] = delta('show', 'run', '-w', work);
        const shown = await runProcess(sfile!, sargs, { env });
        expect(shown.stdout).toMatch(/image \S+:v1 \(sha256:[0-9a-f]{64}\), workspace at \/workspace/);
        expect(shown.stdout).toContain('changed outside the workspace: 2 paths\n  deleted /bin/wc\n  written /testbed/app.py\n');

        const [ifile, ...iargs] = delta('images');
        const listed = await runProcess(ifile!, iargs, { env });
        expect(listed.stdout).toMatch(/unused now .*:v1 \(sha256:/);
        const [pfile, ...pargs] = delta('images', 'prune');
        const pruned = await runProcess(pfile!, pargs, { env });
        expect(pruned.stdout).toMatch(/pruned 1 root, freed \d/);
        // The run's layer stays with the run; its user removes it with the run (no directory closed to them).
        expect(existsSync(join(work, '.delta', runId, 'layer', 'upper', 'testbed', 'app.py'))).toBe(true);
        const [rfile, ...rargs] = [...identity.prefix, 'rm', '-r', join(work, '.delta', runId)];
        const removed = spawnSync(rfile!, rargs, { encoding: 'utf8' });
        expect(removed.status, removed.stderr).toBe(0);
      },
      180_000,
    );
  }
});
