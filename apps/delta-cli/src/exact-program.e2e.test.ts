// An exec tool runs exactly the program it names (issue 42): an agent kept under `lr=0.1/` (its program's
// path holds `=`), run by a user whose environment holds UID, a name bash cannot export. The sandbox's
// launcher passed such an environment through `env -i`, which read the program's path as one more variable
// and ran the model's first argument as the program. As root and as nobody.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempDir, runProcess, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const probe = probeBubblewrap();
const noBubblewrap = !probe.ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the exact-program tests: ${noBubblewrap}.\n!!!!!!!!\n`);

afterEach(cleanupTestResources);

describe.skipIf(noBubblewrap !== undefined)('an exec tool whose path holds `=` (real bubblewrap)', () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: runs its own program, never the model's argument`,
      async () => {
        const base = await createTempDir('exact-program-');
        chmodSync(base, 0o755);
        const agent = join(base, 'lr=0.1', 'agent');
        mkdirSync(join(agent, 'tools'), { recursive: true });
        writeFileSync(join(agent, 'tools', 'run.sh'), '#!/bin/sh\necho "run.sh got: $1 $2"\n', { mode: 0o755 });
        writeFileSync(join(agent, 'system_prompt.md'), 'x\n');
        writeFileSync(
          join(agent, 'context.yaml'),
          'sources:\n  - type: file\n    path: ${AGENT_HOME}/system_prompt.md\n  - type: journal\n',
        );
        writeFileSync(
          join(agent, 'agent.yaml'),
          [
            'name: exact',
            'llm: {model: m, max_retries: 0}',
            'tools:',
            '  - name: run',
            '    description: x',
            '    exec: "${AGENT_HOME}/tools/run.sh ${a} ${b}"',
            '    allow_option_values: true',
            '',
          ].join('\n'),
        );
        for (const dir of [join(base, 'lr=0.1'), agent, join(agent, 'tools')]) chmodSync(dir, 0o755);
        const work = await createTempDir('exact-program-work-');
        chmodSync(work, 0o777);
        const marker = join(work, 'model-ran-this');
        const server = await startFakeLlm({
          script: [{ tool_calls: [{ name: 'run', arguments: { a: '/usr/bin/touch', b: marker } }] }, { content: 'done' }],
        });
        const [file, ...args] = [...identity.prefix, process.execPath, DELTA_BIN, 'run', '--agent', agent, '-m', 'go', '-w', work];
        const result = await runProcess(file!, args, {
          env: { ...process.env, UID: '12345', DELTA_API_KEY: 'sk-exact-test', DELTA_BASE_URL: server.baseUrl },
        });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(existsSync(marker)).toBe(false);
        const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
        const [action] = readJournal(join(work, '.delta', runId, 'journal.jsonl')).filter((event) => event.type === 'ACTION_RESULT');
        expect(action).toMatchObject({
          exit_code: 0,
          observation_content: expect.stringContaining(`run.sh got: /usr/bin/touch ${marker}`),
        });
      },
      60_000,
    );
  }
});
