// `delta batch DIR --oracle` end to end (issue 44 item 3), as root and as nobody: each Harbor task's
// solution/solve.sh runs in the task's image (built here with umoci and busybox), then its verifier; the task
// whose solution fails is named and the command exits 1. With no model and no key. Then the agent's batch in
// the same OUT, and `delta report OUT` leaves the broken task out of the pass rates and lists it.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, createTempAgent, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { imageToolsMissing } from '../../../packages/images/src/image.test-support.js';
import { oracleFixture } from '../../../packages/experiments/src/oracle.test-support.js';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN, deltaEnv } from './test-support.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the delta batch --oracle tests: ${noBubblewrap}.\n!!!!!!!!\n`);

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

const VERIFIER = 'bash /tests/test.sh';

describe.skipIf(skip !== undefined)('delta batch DIR --oracle (real bubblewrap, overlay, umoci)', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: names the task whose solution fails, exits 1, and the report leaves it out`,
      async () => {
        const base = shared('delta-oracle-');
        const { tasks, imageMap } = oracleFixture(base);
        const good = join(base, 'good-tasks');
        cpSync(join(tasks, 'fix-state'), join(good, 'fix-state'), { recursive: true });
        spawnSync('chmod', ['-R', 'a+rX', base]);
        const cache = join(base, 'cache');
        mkdirSync(cache, { mode: 0o777 });
        chmodSync(cache, 0o777);
        const agent = await createTempAgent({
          agentYaml: {
            name: 'fixer',
            llm: { model: 'm', max_retries: 0 },
            tools: [{ name: 'sh', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
          },
        });
        chmodSync(agent, 0o755);
        const out = join(base, 'out');
        const delta = (args: string[], env: Record<string, string | undefined> = {}) => {
          const [file, ...rest] = [...identity.prefix, process.execPath, DELTA_BIN, ...args];
          return runProcess(file!, rest, { env: deltaEnv({ DELTA_IMAGE_CACHE: cache, HOME: base, ...env }) });
        };
        const batch = ['batch', tasks, '--agent', agent, '--out', out, '--image-map', imageMap, '--grader', VERIFIER];

        // No model, no key: the oracle asks nothing of any model.
        const oracle = await delta([...batch, '--oracle']);
        expect(oracle.exitCode, oracle.stderr).toBe(1);
        const run = (task: string) => join(out, task, 'oracle', '1');
        expect(oracle.stdout).toContain(`oracle passed  fix-state  (${run('fix-state')})\n`);
        expect(oracle.stdout).toContain(`oracle passed  write-file  (${run('write-file')})\n`);
        expect(oracle.stdout).toContain('no oracle      no-solution  (it has no solution/solve.sh)\n');
        expect(oracle.stdout).toContain('oracle FAILED  broken  verifier: score 0 (not passed); solve.sh exited with code 3\n');
        expect(oracle.stdout).toContain(
          `  logs: solve.sh's output ${run('broken')}/.delta/run-1/io/tool_executions/oracle-solve/, the verifier's ${run('broken')}/.delta/run-1/grades/`,
        );
        expect(oracle.stdout).toContain(
          `Oracle: 2 passed, 1 failed, 1 with no oracle, of 4 tasks (verified by ${VERIFIER}).\n` +
            `The oracle failed for broken: a broken task or image. delta report ${out} leaves it out of the pass rates.\n`,
        );

        // Every oracle passes: exit 0.
        const allGood = await delta([
          'batch',
          good,
          '--agent',
          agent,
          '--out',
          join(base, 'out-good'),
          '--image-map',
          imageMap,
          '--oracle',
        ]);
        expect(allGood.exitCode, allGood.stderr).toBe(0);
        expect(allGood.stdout).toContain('Oracle: 1 passed, 0 failed, of 1 task (verified by bash /tests/test.sh).\n');

        // The agent's batch in the same OUT: it fixes /app/state (which the broken task's verifier checks too) and
        // writes the wrong hello.txt.
        const server = await startFakeLlm({
          script: (request) => {
            const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;
            if (messages.some((message) => message.role === 'tool')) return { content: 'done' };
            const task = String(messages.find((message) => message.role === 'user')?.content);
            const script = task.includes('hello.txt') ? 'echo bye > hello.txt' : 'echo fixed > /app/state';
            return { tool_calls: [{ name: 'sh', arguments: { script } }] };
          },
        });
        const agentRuns = await delta(batch, modelEnv(server));
        expect(agentRuns.exitCode, agentRuns.stderr).toBe(0);

        const report = await delta(['report', out]);
        expect(report.exitCode, report.stderr).toBe(0);
        expect(report.stdout).toContain(
          `Oracle (each task's solution, verified by ${VERIFIER}): 2 of 4 tasks passed; 1 failed, left out of every figure below; 1 with no oracle, kept.\n` +
            `  left out: broken: verifier: score 0 (not passed); solve.sh exited with code 3 (${run('broken')})\n` +
            '  no oracle: no-solution\n',
        );
        // Three tasks counted, two passed (fix-state and no-solution): the broken task's pass is not among them.
        expect(report.stdout).toMatch(/^m\s+3\s+3\s+0\s+0\s+0\s+2\/3\s+1\s+0\s+67% \[21-94\]/m);
        expect(report.stdout).not.toMatch(/^broken\s/m);
      },
      240_000,
    );
  }
});
