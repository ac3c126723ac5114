// The grader of a run in an image against the run it grades (issue 44), through `delta batch`, as root and as
// nobody: a run that replaced the verifier's /bin/sh gets no verdict, and one that made /logs a link to this
// machine (through bubblewrap's /oldroot) makes nothing there. The same attacks and more, in one process:
// packages/experiments/src/grader-in-image-attacks.test.ts.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, createTempAgent, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../../packages/images/src/image.test-support.js';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the grader attack tests: ${noBubblewrap}.\n!!!!!!!!\n`);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

describe.skipIf(skip !== undefined)('a hostile run against its grader, through delta batch', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: no verdict for a replaced /bin/sh, nothing made through /logs`,
      async () => {
        // Outside /tmp (the sandbox's /tmp is its own), anyone may write.
        const base = mkdtempSync(join('/var/tmp', 'delta-grader-attacks-'));
        dirs.push(base);
        buildImage(join(base, 'image'), 'v1', (rootfs) => {
          mkdirSync(join(rootfs, 'testbed'));
          writeFileSync(join(rootfs, 'testbed', 'state'), 'broken\n');
        });
        const hostDir = join(base, 'host');
        mkdirSync(hostDir);
        mkdirSync(join(base, 'tests'));
        writeFileSync(
          join(base, 'tests', 'test.sh'),
          'if grep -q fixed /testbed/state; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n',
        );
        const scripts: Record<string, string> = {
          honest: 'echo fixed > /testbed/state',
          'own-shell':
            "rm -f /bin/sh && printf '#!/bin/busybox sh\\necho 1 > /logs/verifier/reward.txt\\n' > /bin/sh && /bin/busybox chmod 755 /bin/sh",
          'logs-link': `rm -rf /logs && /bin/busybox ln -s /oldroot${hostDir} /logs`,
        };
        writeFileSync(
          join(base, 'tasks.jsonl'),
          Object.keys(scripts)
            .map((id) => JSON.stringify({ id, message: id, image: 'image:v1', tests: 'tests', workdir: '/workspace' }))
            .join('\n'),
        );
        const agent = await createTempAgent({
          agentYaml: {
            name: 'attacker',
            llm: { model: 'm', max_retries: 0 },
            grader: 'sh /tests/test.sh',
            tools: [{ name: 'sh', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
          },
        });
        spawnSync('chmod', ['-R', 'a+rwX', base, agent]);
        const server = await startFakeLlm({
          script: (request) => {
            const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;
            const task = String(messages.find((message) => message.role === 'user')?.content);
            return messages.some((message) => message.role === 'tool')
              ? { content: 'done' }
              : { tool_calls: [{ name: 'sh', arguments: { script: scripts[task] } }] };
          },
        });
        const out = join(base, 'out');
        const env = { ...process.env, ...modelEnv(server), DELTA_IMAGE_CACHE: join(base, 'cache'), HOME: base };
        const [file, ...args] = [
          ...identity.prefix,
          process.execPath,
          DELTA_BIN,
          'batch',
          join(base, 'tasks.jsonl'),
          '--agent',
          agent,
          '--out',
          out,
        ];
        const result = await runProcess(file!, args, { env });
        expect(result.exitCode, result.stderr).toBe(0);
        chmodSync(base, 0o777);

        const grade = (task: string) => JSON.parse(readFileSync(join(out, task, 'm', '1', '.delta', 'run-1', 'grade.json'), 'utf8'));
        expect(grade('honest')).toMatchObject({ passed: true });
        expect(grade('own-shell')).toMatchObject({
          passed: null,
          error: "the run changed the verifier's own programs in its layer: /bin/sh (written); the grader was not run",
        });
        expect(grade('logs-link')).toMatchObject({ passed: null, error: expect.stringContaining('the grader could not start') });
        expect(readdirSync(hostDir)).toEqual([]);
      },
      240_000,
    );
  }
});
