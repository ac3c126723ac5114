import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { DELTA_BIN } from './test-support.js';

// Real bubblewrap: .ci/run installs it. Only a machine where that install failed may skip, loudly.
const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
if (!probe.ok && unavailable) {
  console.warn(
    `\n!!!!!!!!\n!!! SKIPPING the inherited-descriptor sandbox tests: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`,
  );
}

afterEach(cleanupTestResources);

/** A tool that writes a file outside through descriptor 50 and reads a hidden one through 60, if it has them. */
const ATTACK = [
  'ls /proc/self/fd > fds.txt',
  `bash -c 'echo "written from inside the sandbox" >&50' 2>/dev/null && echo wrote-50 >> seen.txt`,
  `bash -c 'cat <&60' >> seen.txt 2>/dev/null`,
  'echo done >> seen.txt',
].join('\n');

describe.skipIf(!probe.ok && unavailable !== undefined)('descriptors delta inherits (real bubblewrap, network off)', () => {
  it('reach no sandboxed tool: it can neither write a file outside nor read a hidden one through them', async () => {
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'attack', arguments: {} }] }, { content: 'done' }] });
    const outside = await createTempDir('outside-');
    const hidden = join(outside, 'hidden.txt');
    writeFileSync(hidden, 'a hidden secret\n');
    writeFileSync(join(outside, 'log'), '');
    const agent = await createTempAgent({
      agentYaml: {
        name: 'fds',
        llm: { model: 'm' },
        sandbox: { network: false },
        tools: [{ name: 'attack', description: 'x', shell: ATTACK }],
      },
    });
    const work = await createTempDir('work-');
    // As a CI runner or a supervisor starts it: with descriptors open that were not marked close-on-exec.
    const result = await runProcess(
      'bash',
      ['-c', 'exec 50>>"$1" 60<"$2"; shift 2; exec "$@"', 'bash', join(outside, 'log'), hidden, process.execPath, DELTA_BIN, 'run'].concat([
        '--agent',
        agent,
        '-w',
        work,
        '-m',
        'go',
      ]),
      { env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl } },
    );
    expect(result.stderr).toContain('(sandbox: bubblewrap, workspace-write, network off)');
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(work, 'seen.txt'), 'utf8')).toBe('done\n');
    expect(readFileSync(join(outside, 'log'), 'utf8')).toBe('');
    // The tool's own descriptors: its standard three, and the one ls opened to list them.
    expect(
      readFileSync(join(work, 'fds.txt'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(Number)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3]);
    expect(readdirSync(work)).not.toContain('escaped');
  });
});
