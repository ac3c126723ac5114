// The end hooks (on_error, on_run_end) run unsandboxed with the user's rights, and may look at the
// workspace (`delta-sessions cleanup` does): nothing a tool left running may change it under them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

const probe = probeBubblewrap();
if (!probe.ok) console.warn(`\n!!! SKIPPING the end-hooks-after-the-sandbox test: ${probe.problem}\n`);

afterEach(cleanupTestResources);

describe('the end hooks', () => {
  it.skipIf(!probe.ok)('run once every process a tool left in the sandbox has ended', async () => {
    const agent = await createTempAgent({
      agentYaml: {
        name: 'leftover',
        llm: { model: 'm' },
        ask_human: false,
        tools: [
          {
            name: 'leave',
            description: 'Leaves a process behind that keeps writing the workspace.',
            // setsid: it leaves its call's process group, so only the sandbox's end stops it. flock: it holds
            // heartbeat.lock while it lives, which the hook tests. Each beat is renamed into place, so the file
            // always holds a whole number, however the sandbox's end cuts it short (a truncating `>` killed
            // before its write left it empty). The call returns once a few beats are written (a signal, not a clock).
            shell:
              'setsid flock heartbeat.lock sh -c \'i=0; while [ $i -lt 3000 ]; do echo $i > beat.tmp; mv beat.tmp heartbeat; i=$((i+1)); sleep 0.01; done\' </dev/null >/dev/null 2>&1 & until [ "$(cat heartbeat 2>/dev/null || echo 0)" -ge 3 ] 2>/dev/null; do sleep 0.01; done',
          },
        ],
      },
      files: {
        // The lock is free only once every process holding it has ended: what the hook needs, with no clock.
        'hooks.yaml':
          'on_run_end:\n  command: ["sh", "-c", "a=$(cat heartbeat); if flock -n heartbeat.lock true; then s=ended; else s=running; fi; b=$(cat heartbeat); echo \\"$a $b $s\\" > ../seen-by-hook"]\n',
      },
    });
    const root = await createTempDir('end-hooks-');
    const workDir = join(root, 'w');
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'leave', arguments: {} }] }, { content: 'done' }] });
    const run = await runDelta(['run', '--agent', agent, '-w', workDir, '-m', 'go', '-y'], {
      env: { DELTA_BASE_URL: server.baseUrl, DELTA_API_KEY: 'k' },
    });
    expect(run.exitCode).toBe(0);
    const [before, after, leftover] = readFileSync(join(root, 'seen-by-hook'), 'utf8').trim().split(' ');
    expect(Number(before)).toBeGreaterThanOrEqual(3);
    // The leftover had ended before the hook ran (its lock was free), and the heartbeat stood still.
    expect(leftover).toBe('ended');
    expect(after).toBe(before);
  });
});
