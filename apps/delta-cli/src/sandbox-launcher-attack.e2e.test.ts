// The sandbox's launcher (bash, inside the run's bubblewrap) attacked from inside a real `delta run`, once
// as root and once as the unprivileged user nobody (issue 34's launcher, the hostile review's findings):
// a tool tries to flood the launcher's reply channel with a line that never ends (copying the launcher's
// output with pidfd_getfd, which worked until issue 42), and looks for the runs' private /tmp directories
// under a TMPDIR other than /tmp. The copy must fail and the run go on, and no tool may see where the runs'
// /tmp directories are. Forged replies of every kind: forged-results.e2e.test.ts.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, runProcess, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const probe = probeBubblewrap();
const skipAll = !probe.ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
if (skipAll) console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandbox launcher attack tests: ${skipAll}.\n!!!!!!!!\n`);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

// Copies the launcher's stdout (the tool's grandparent's descriptor 1) with pidfd_open (434) and
// pidfd_getfd (438), then writes 4 MB with no newline on it; whatever happens, it says so in the workspace.
const FLOOD = `ws=$1
L=$(awk '{print $4}' /proc/$PPID/stat)
perl -e 'use POSIX; my $p = syscall(434, $ARGV[0] + 0, 0); my $fd = syscall(438, $p, 1, 0); die "pidfd: $!" if $fd < 0; dup2($fd, 9) or die; exec "sh", "-c", "head -c 4000000 /dev/zero | tr \\"\\\\0\\" a >&9"' "$L" 2> "$ws/flood.err"
echo "flood exited $?" > "$ws/flood.txt"
`;

// Lists what the tool can see of the runs' private /tmp directories under the machine's TMPDIR.
const LOOK = `ws=$1; tmp=$2
{ ls -A "$tmp"; for dir in "$tmp"/delta-sandboxes-*; do echo "in $dir:"; ls -A "$dir" 2>&1; done; } > "$ws/seen.txt" 2>&1
`;

describe.skipIf(skipAll !== undefined)("the sandbox's launcher under attack from a tool (real bubblewrap)", () => {
  for (const identity of identities()) {
    if (identity.unavailable) {
      console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandbox launcher attack test as ${identity.name}: ${identity.unavailable}.\n!!!!!!!!\n`);
    }
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: no tool can flood the launcher's reply channel, nor see the runs' /tmp directories`,
      async () => {
        // Outside /tmp, anyone may write: the machine's TMPDIR for the engine, and the scripts.
        const machineTmp = mkdtempSync('/var/tmp/delta-launcher-attack-tmp-');
        const scripts = mkdtempSync('/var/tmp/delta-launcher-attack-scripts-');
        dirs.push(machineTmp, scripts);
        chmodSync(machineTmp, 0o777);
        chmodSync(scripts, 0o755);
        writeFileSync(join(scripts, 'flood.sh'), FLOOD);
        writeFileSync(join(scripts, 'look.sh'), LOOK);
        const work = await createTempDir('launcher-attack-work-');
        const home = await createTempDir('launcher-attack-home-');
        for (const dir of [work, home]) chmodSync(dir, 0o777);
        const agent = await createTempAgent({
          agentYaml: {
            name: 'launcher-attack',
            llm: { model: 'm', max_retries: 0 },
            sandbox: { mode: 'workspace-write', network: false },
            tools: [
              { name: 'look', description: 'x', exec: `sh ${join(scripts, 'look.sh')} ${work} ${machineTmp}` },
              { name: 'flood', description: 'x', exec: `sh ${join(scripts, 'flood.sh')} ${work}`, timeout_ms: 30_000 },
            ],
          },
        });
        chmodSync(agent, 0o755);
        const server = await startFakeLlm({
          script: [
            { tool_calls: [{ name: 'look', arguments: {} }] },
            { tool_calls: [{ name: 'flood', arguments: {} }] },
            { content: 'done' },
          ],
        });
        const [file, ...args] = [...identity.prefix, process.execPath, DELTA_BIN, 'run', '--agent', agent, '-m', 'go', '-w', work];
        const result = await runProcess(file!, args, {
          env: { ...process.env, HOME: home, TMPDIR: machineTmp, DELTA_API_KEY: 'sk-attack-test', DELTA_BASE_URL: server.baseUrl },
        });
        expect(result.exitCode, result.stderr).toBe(0);

        // The runs' private /tmp directories are covered: the tool sees their parent, empty.
        const seen = readFileSync(join(work, 'seen.txt'), 'utf8');
        expect(seen).toMatch(/^delta-sandboxes-\d+\nin \S+delta-sandboxes-\d+:\n$/);

        // The launcher's output could not be copied: the flood never reached it, and its call ended as it did.
        expect(readFileSync(join(work, 'flood.err'), 'utf8')).toMatch(/^pidfd: Operation not permitted/);
        expect(readFileSync(join(work, 'flood.txt'), 'utf8')).toBe('flood exited 1\n');
        const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
        const events = readJournal(join(work, '.delta', runId, 'journal.jsonl'));
        const results = events.filter((event) => event.type === 'ACTION_RESULT') as Array<{ status: string; exit_code: number | null }>;
        expect(results.map((event) => [event.status, event.exit_code])).toEqual([
          ['SUCCESS', 0],
          ['SUCCESS', 0],
        ]);
        expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
      },
      90_000,
    );
  }
});
