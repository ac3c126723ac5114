// The grader of a sandboxed run without an image runs the model's code (the workspace's tests, a module it
// imports): it runs in the run's sandbox, through `delta batch`, as root and as nobody. The model's code,
// run by the grader, cannot make a file on this machine, nor rewrite the endpoint in the run's
// metadata.json (where a later `delta continue` would send the key), and has the network only when the
// run's tools had it; the grade is still the grader's.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTestResources, createTempAgent, modelEnv, runProcess, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { identities } from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const noBubblewrap = !probeBubblewrap().ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the host grader attack tests: ${noBubblewrap}.\n!!!!!!!!\n`);

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  await cleanupTestResources();
});

/** The model's solution.sh, written by its tool: it prints 5, and tries what the comment of each says first. */
function solutions(hostDir: string, port: number): Record<string, string> {
  return {
    honest: 'echo 5',
    // A file on this machine, and the endpoint a later `delta continue` would send the key to.
    escape: [
      `touch ${hostDir}/escaped`,
      `for m in "$DELTA_WORK_DIR"/.delta/*/metadata.json; do sed -i 's#127.0.0.1#10.9.9.9#' "$m"; done`,
      'echo 5',
    ].join('\n'),
    // A listener on this machine (run with the network off, it must not hear from the grader).
    'phone-home': `node -e 'require("net").connect(${port}, "127.0.0.1").on("error", () => {})'\necho 5`,
  };
}

async function gradedBatch(identity: { prefix: string[] }, network: boolean) {
  // Outside /tmp (the sandbox's /tmp is its own), anyone may write.
  const base = mkdtempSync(join('/var/tmp', 'delta-host-grader-attacks-'));
  dirs.push(base);
  const hostDir = join(base, 'host');
  mkdirSync(hostDir);
  let connections = 0;
  const listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as { port: number }).port;
  const scripts = solutions(hostDir, port);
  writeFileSync(
    join(base, 'tasks.jsonl'),
    Object.keys(scripts)
      .map((id) => JSON.stringify({ id, message: id }))
      .join('\n'),
  );
  const agent = await createTempAgent({
    agentYaml: {
      name: 'attacker',
      llm: { model: 'm', max_retries: 0 },
      grader: 'sh "$DELTA_AGENT_HOME/grade.sh"',
      sandbox: { network },
      tools: [{ name: 'write', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
    },
  });
  // The researcher's grader: it runs the model's solution.sh and checks what it prints.
  writeFileSync(join(agent, 'grade.sh'), 'test "$(sh "$DELTA_WORK_DIR/solution.sh")" = 5\n');
  await runProcess('chmod', ['-R', 'a+rwX', base, agent]);
  const server = await startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;
      const task = String(messages.find((message) => message.role === 'user')?.content);
      return messages.some((message) => message.role === 'tool')
        ? { content: 'done' }
        : { tool_calls: [{ name: 'write', arguments: { script: `cat > solution.sh <<'EOF'\n${scripts[task]}\nEOF` } }] };
    },
  });
  const out = join(base, 'out');
  const env = { ...process.env, ...modelEnv(server), HOME: base };
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
  listener.close();
  chmodSync(base, 0o777);
  const runDir = (task: string) => join(out, task, 'm', '1', '.delta', 'run-1');
  return {
    result,
    hostDir,
    connections,
    grade: (task: string) => JSON.parse(readFileSync(join(runDir(task), 'grade.json'), 'utf8')),
    metadata: (task: string) => readFileSync(join(runDir(task), 'metadata.json'), 'utf8'),
  };
}

describe.skipIf(noBubblewrap !== undefined)("the grader of a sandboxed run runs the model's code in the run's sandbox", () => {
  for (const identity of identities()) {
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: no file made on this machine, the run's metadata.json as it was, the grade the grader's`,
      async () => {
        const batch = await gradedBatch(identity, true);
        expect(batch.result.exitCode, batch.result.stderr).toBe(0);
        for (const task of ['honest', 'escape', 'phone-home']) expect(batch.grade(task)).toMatchObject({ passed: true, ran_in: 'host' });
        expect(readdirSync(batch.hostDir)).toEqual([]);
        expect(batch.metadata('escape')).toContain('127.0.0.1');
        expect(batch.metadata('escape')).not.toContain('10.9.9.9');
        // The run's tools had the network: so does its grader.
        expect(batch.connections).toBe(1);
      },
      240_000,
    );
  }

  it('with the network off for the run, its grader has none either', async () => {
    const batch = await gradedBatch({ prefix: [] }, false);
    expect(batch.result.exitCode, batch.result.stderr).toBe(0);
    expect(batch.grade('phone-home')).toMatchObject({ passed: true });
    expect(batch.connections).toBe(0);
  }, 240_000);
});
