// Two runs' sandboxes in one process whose temporary directory is not /tmp (TMPDIR=/var/tmp, a cluster's
// scratch): each run's private /tmp is a directory of it, holding the launcher's staged environments and
// inputs, and one run's tool must see none of another's.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSandbox, runCommand, type SandboxPolicy } from '../index.js';
import { bubblewrapForTests, workspacePolicy } from './sandbox.test-support.js';

const bubblewrap = bubblewrapForTests('the sandbox TMPDIR tests');

// Outside /tmp on purpose: the run's own /tmp covers the machine's, not another directory. Made only when
// the test runs (a filtered run skips the hooks, and would leave them behind).
let machineTmp = '';
let root = '';
beforeAll(() => {
  machineTmp = mkdtempSync('/var/tmp/delta-sandbox-tmpdir-test-');
  root = mkdtempSync(join(tmpdir(), 'delta-sandbox-tmpdir-runs-'));
  writeFileSync(join(machineTmp, 'data.txt'), 'kept\n');
});
afterAll(() => {
  rmSync(machineTmp, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

const policy = (name: string): SandboxPolicy => workspacePolicy(join(root, name));

function startWithTmpdir(sandboxPolicy: SandboxPolicy): RunSandbox {
  const before = process.env.TMPDIR;
  process.env.TMPDIR = machineTmp;
  try {
    return RunSandbox.start(sandboxPolicy, bubblewrap.path!);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
}

function sh(sandbox: RunSandbox, name: string, script: string, env: Record<string, string> = {}, stdin?: string) {
  const workspace = sandbox.policy.workspace;
  return runCommand({
    file: 'sh',
    args: ['-c', script],
    cwd: workspace,
    env: { PATH: '/usr/bin:/bin', ...env },
    ...(stdin === undefined ? {} : { stdin }),
    stdoutFile: join(workspace, '.delta', `${name}.out`),
    stderrFile: join(workspace, '.delta', `${name}.err`),
    sandbox,
    timeoutMs: 30_000,
  });
}

describe.skipIf(bubblewrap.skip)("a run's tool and another run's private /tmp outside /tmp (real bubblewrap)", () => {
  it("sees nothing of it: not its files, staged environment (a key given to a tool) or a call's input", async () => {
    const other = startWithTmpdir(policy('other'));
    const attacker = startWithTmpdir(policy('attacker'));
    try {
      expect(other.tmpDir.startsWith(`${machineTmp}/delta-sandboxes-`)).toBe(true);
      const given = await sh(other, 'given', 'echo private > /tmp/private.txt', { DELTA_API_KEY: 'sk-other-run-key' });
      expect(given.exitCode).toBe(0);
      // A call of the other run in flight: its input is staged meanwhile.
      const inFlight = sh(other, 'in-flight', 'cat > /dev/null; sleep 3', {}, 'the other run input');
      const look = await sh(
        attacker,
        'look',
        `sleep 1; ls -a ${machineTmp} | tr '\\n' ' '; echo; cat ${machineTmp}/data.txt; grep -r -a -h -o -e sk-other-run-key -e 'the other run input' -e private ${machineTmp} 2>/dev/null; true`,
      );
      await inFlight;
      const seen = readFileSync(join(attacker.policy.workspace, '.delta', 'look.out'), 'utf8');
      expect(look.exitCode).toBe(0);
      // The runs' /tmp directories are in one directory of the machine's, empty in there; the rest of the
      // machine's temporary directory is as it was (its own /tmp is /tmp).
      expect(seen).toBe(`. .. data.txt delta-sandboxes-${process.geteuid!()} \nkept\n`);
    } finally {
      await Promise.all([other.stop(), attacker.stop()]);
    }
  }, 60_000);
});
