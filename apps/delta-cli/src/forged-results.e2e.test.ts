// A call's exit code, end and output are what that call produced (issue 42): a process a tool left running in
// the run's sandbox attacks a later call (its launcher's replies, its watcher, the call's own process) from
// inside a real `delta run`, as root and as nobody. The later call printed that 3 tests failed and exited 1:
// before, it was journaled as exit 0.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { FORGER_SCRIPT, PLANT_SCRIPT, RUN_TESTS_SCRIPT } from './forged-results.test-support.js';
import { identities, parseObserved } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const probe = probeBubblewrap();
const noBubblewrap = !probe.ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the forged-results tests: ${noBubblewrap}.\n!!!!!!!!\n`);

const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await cleanupTestResources();
});

describe.skipIf(noBubblewrap !== undefined)("no process of a run's sandbox forges another call's result (real bubblewrap)", () => {
  for (const identity of identities()) {
    if (identity.unavailable) {
      console.warn(`\n!!!!!!!!\n!!! SKIPPING the forged-results test as ${identity.name}: ${identity.unavailable}.\n!!!!!!!!\n`);
    }
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: replies, descriptors, ptrace and memory are out of reach`,
      async () => {
        const work = await createTempDir('forged-work-');
        chmodSync(work, 0o777);
        // Outside /tmp (the sandbox has its own), readable by nobody.
        const scripts = mkdtempSync('/var/tmp/delta-forged-');
        chmodSync(scripts, 0o755);
        cleanups.push(() => rmSync(scripts, { recursive: true, force: true }));
        for (const [name, text] of Object.entries({
          'forger.sh': FORGER_SCRIPT,
          'plant.sh': PLANT_SCRIPT,
          'run-tests.sh': RUN_TESTS_SCRIPT,
        })) {
          writeFileSync(join(scripts, name), text, { mode: 0o644 });
        }
        const agent = await createTempAgent({
          agentYaml: {
            name: 'forged',
            llm: { model: 'm', max_retries: 0 },
            tools: [
              { name: 'plant', description: 'x', exec: `sh ${join(scripts, 'plant.sh')} ${join(scripts, 'forger.sh')} ${work}` },
              { name: 'run_tests', description: 'x', exec: `sh ${join(scripts, 'run-tests.sh')}` },
            ],
          },
        });
        chmodSync(agent, 0o755);
        const server = await startFakeLlm({
          script: [
            { tool_calls: [{ name: 'plant', arguments: {} }] },
            { tool_calls: [{ name: 'run_tests', arguments: {} }] },
            { content: 'done' },
          ],
        });
        const [file, ...args] = [...identity.prefix, process.execPath, DELTA_BIN, 'run', '--agent', agent, '-m', 'go', '-w', work];
        const result = await runProcess(file!, args, {
          env: { ...process.env, DELTA_API_KEY: 'sk-forged-test', DELTA_BASE_URL: server.baseUrl },
        });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stderr).toContain('(sandbox: bubblewrap, workspace-write');

        const seen = Object.fromEntries(parseObserved(readFileSync(join(work, 'forger.txt'), 'utf8')));
        expect(seen).toEqual({
          // No bubblewrap in there (its argv named this machine's paths), and no way to the launcher's directory.
          pid1: ['delta-sandbox-launcher --library-path /tmp/.delta-io/lib /tmp/.delta-io/bash --norc --noprofile '],
          'launcher-dir': ['hidden'],
          'launcher-getfd': ['refused'],
          'watcher-getfd': ['refused'],
          'launcher-fd': ['refused'],
          'watcher-fd': ['refused'],
          ptrace: ['refused'],
          'vm-write': ['refused'],
          'mem-write': ['refused'],
        });
        const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
        const results = readJournal(join(work, '.delta', runId, 'journal.jsonl')).filter((event) => event.type === 'ACTION_RESULT');
        expect(results.map((event) => [event.tool_name, event.exit_code])).toEqual([
          ['plant', 0],
          ['run_tests', 1],
        ]);
        expect(results[1]!.observation_content).toContain('3 tests failed');
      },
      60_000,
    );
  }
});
