// Limits per run (issue 44 item 4): a task's `limits.layer` bounds what its run in an image writes outside its
// workspace (its own copy-on-write layer), held without any privilege: as root and as nobody, the run that
// writes past it is stopped (limits_hit: layer, the model told in its last observation), the one beside it
// completes.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../../packages/images/src/image.test-support.js';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN, deltaEnv } from './test-support.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the layer limit tests: ${noBubblewrap}.\n!!!!!!!!\n`);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

/** A directory outside /tmp (the sandbox's /tmp is its own) that anyone may write. */
function shared(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o777);
  dirs.push(dir);
  return dir;
}

const MIB = 1024 * 1024;

describe.skipIf(skip !== undefined)('a layer limit from the task (real bubblewrap, overlay, umoci)', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: the run that writes past it is stopped, the other completes`,
      async () => {
        const llm = await startFakeLlm({
          script: (request) => {
            const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
            if (messages.some((message) => message.role === 'tool')) return { content: 'done' };
            const script = messages.findLast((message) => message.role === 'user')!.content;
            return { tool_calls: [{ name: 'sh', arguments: { script } }] };
          },
        });
        const base = shared('delta-layer-limit-');
        buildImage(join(base, 'layout'), 'v1', (rootfs) => mkdirSync(join(rootfs, 'testbed')), { workdir: '/testbed' });
        const agent = join(base, 'agent');
        mkdirSync(agent);
        writeFileSync(
          join(agent, 'agent.yaml'),
          'name: layer\nllm: {model: m, max_retries: 0}\ntools:\n  - {name: sh, description: run a script, exec: "sh -c ${script}", allow_option_values: true}\n',
        );
        writeFileSync(join(agent, 'system_prompt.md'), 'Run the script you are given.\n');
        writeFileSync(
          join(agent, 'context.yaml'),
          'sources:\n  - {type: file, id: system_prompt, path: "${AGENT_HOME}/system_prompt.md"}\n  - {type: journal, id: conversation_history}\n',
        );
        const tasks = [
          // 1 MiB after another outside the workspace, up to 100 over 5 s, where 4 MiB are allowed: stopped while it writes.
          {
            id: 'big',
            message:
              'i=0; while [ $i -lt 100 ]; do dd if=/dev/zero of=/big-$i bs=1048576 count=1 2>/dev/null; i=$((i+1)); sleep 0.05; done; echo wrote',
            limits: { layer: 4 * MIB },
          },
          { id: 'small', message: 'echo hi > /small; echo wrote', limits: { layer: 4 * MIB } },
        ].map((task) => ({ ...task, image: 'layout:v1', workdir: '/workspace' }));
        writeFileSync(join(base, 'tasks.jsonl'), tasks.map((task) => `${JSON.stringify(task)}\n`).join(''));
        const cache = join(base, 'cache');
        mkdirSync(cache);
        spawnSync('chmod', ['-R', 'a+rwX', base]);

        const out = join(base, 'out');
        const args = ['batch', join(base, 'tasks.jsonl'), '--agent', agent, '--out', out];
        const [file, ...rest] = [...identity.prefix, process.execPath, DELTA_BIN, ...args];
        const result = await runProcess(file!, rest, { env: deltaEnv({ ...modelEnv(llm), DELTA_IMAGE_CACHE: cache, HOME: base }) });

        expect(result.exitCode, `${result.stdout}\n${result.stderr}`).toBe(1);
        expect(result.stdout).toContain('2 runs: 1 completed, 0 failed, 1 ended at a limit, 0 interrupted');
        expect(result.stderr).not.toContain('NOT enforced');
        const limits = readFileSync(join(out, '.batch', 'limits.jsonl'), 'utf8');
        expect(JSON.parse(limits.trim())).toEqual({
          limit: 'layer',
          enforced: true,
          by: 'layer watch',
          tasks: ['big', 'small'],
          models: ['m'],
        });
        const run = (task: string) => join(out, task, 'm', '1', '.delta', 'run-1');
        const big = JSON.parse(readFileSync(join(run('big'), 'metadata.json'), 'utf8'));
        expect(big).toMatchObject({ status: 'INTERRUPTED', limits_hit: ['layer'] });
        expect(big.status_reason).toMatch(/^stopped: the run's layer holds \d+ bytes, past its limit of 4194304$/);
        expect(readFileSync(join(run('big'), 'journal.jsonl'), 'utf8')).toContain(
          'Note: the run wrote more than its layer limit (4 MiB outside its workspace): its sandbox was ended, and the run ends.',
        );
        // Stopped within about one measuring interval (0.5 s) of passing the bound, the call with it.
        const written = readdirSync(join(run('big'), 'layer', 'upper')).filter((name) => name.startsWith('big-'));
        expect(written.length).toBeGreaterThan(4);
        expect(written.length).toBeLessThan(40);
        expect(readFileSync(join(run('big'), 'journal.jsonl'), 'utf8')).not.toContain('"observation_content":"wrote');
        const small = JSON.parse(readFileSync(join(run('small'), 'metadata.json'), 'utf8'));
        expect(small.status).toBe('COMPLETED');
        expect(small.limits_hit).toBeUndefined();
        expect(readFileSync(join(run('small'), 'layer', 'upper', 'small'), 'utf8')).toBe('hi\n');
      },
      180_000,
    );
  }
});
