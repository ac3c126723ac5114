// The sandbox holds for every caller, root included (issue 32): a hostile tool, and a hostile stdio MCP
// server, attack it from inside a real `delta run` (real bubblewrap, network off), once as root and once as
// the unprivileged user nobody. They write what they saw to the workspace; the test checks that, the
// journal, the servers outside and the files outside.
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, redisUnavailable, runProcess, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import {
  ATTACK_SCRIPT,
  identities,
  parseObserved,
  startSocketRedis,
  startSocketServer,
  type SocketServer,
} from './sandbox-attack.test-support.js';
import { DELTA_BIN } from './test-support.js';

const HANG_SERVER = join(import.meta.dirname, '../../../packages/mcp/test/hang-server.mjs');

// Real bubblewrap and redis-server: .ci/run installs them. Only a machine where that failed may skip, loudly.
const probe = probeBubblewrap();
const noBubblewrap = !probe.ok ? process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE : undefined;
const noRedis = redisUnavailable();
const skipAll = noBubblewrap ?? noRedis;
if (skipAll) console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandbox escape tests: ${skipAll}.\n!!!!!!!!\n`);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await cleanupTestResources();
});

/** A directory outside /tmp (the sandbox has its own /tmp), anyone may write: removed after the test. */
function outsideTmp(parent: string, prefix: string): string {
  const dir = mkdtempSync(join(parent, prefix));
  chmodSync(dir, 0o777);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function canWrite(directory: string): boolean {
  try {
    accessSync(directory, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

async function serve<T extends SocketServer>(started: Promise<T>): Promise<T> {
  const socket = await started;
  cleanups.push(() => socket.close());
  return socket;
}

describe.skipIf(skipAll !== undefined)('the sandbox holds for every caller (real bubblewrap, network off)', () => {
  for (const identity of identities()) {
    if (identity.unavailable) {
      console.warn(`\n!!!!!!!!\n!!! SKIPPING the sandbox escape test as ${identity.name}: ${identity.unavailable}.\n!!!!!!!!\n`);
    }
    it.skipIf(identity.unavailable !== undefined)(
      `as ${identity.name}: no capability, no remount, no forged journal line, no user namespace, no unix socket outside, from a tool and from an MCP server`,
      async () => {
        const work = await createTempDir('escape-work-');
        const home = await createTempDir('escape-home-');
        for (const dir of [work, home]) chmodSync(dir, 0o777);
        const outside = outsideTmp('/var/tmp', 'delta-escape-outside-');
        // Unix sockets outside the sandbox, each where it would see it: a redis-server's under /var/tmp and a
        // server's under /run (where the docker and bus sockets live); and one the agent lets its tools reach
        // on purpose (its directory is in sandbox.writable_paths). (One in the workspace: run-sandbox-privileges.test.ts.)
        const redis = await serve(startSocketRedis(join(outsideTmp('/var/tmp', 'delta-escape-redis-'), 'redis.sock')));
        // (/run is root's: another user tests /var/run's tmpfs only where root runs this test, loudly.)
        const runParent = canWrite('/run') ? '/run' : undefined;
        if (!runParent) console.warn('\n!!! the sandbox escape test cannot write /run here: its /run socket is left out\n');
        const run = runParent
          ? await serve(startSocketServer(join(outsideTmp(runParent, 'delta-escape-run-'), 'run.sock'), 'hello from /run'))
          : undefined;
        const keptDir = outsideTmp('/var/tmp', 'delta-escape-kept-');
        const kept = await serve(startSocketServer(join(keptDir, 'kept.sock'), 'hello kept'));
        const sockets = [redis.path, ...(run ? [run.path] : []), kept.path];

        // The script, where the sandbox sees it (read-only).
        const script = join(outsideTmp('/var/tmp', 'delta-escape-script-'), 'attack.sh');
        writeFileSync(script, ATTACK_SCRIPT);
        const attackArgs = (label: string) => [label, work, outside, process.execPath, ...sockets];
        const agent = await createTempAgent({
          agentYaml: {
            name: 'escape',
            llm: { model: 'm', max_retries: 0 },
            sandbox: { mode: 'workspace-write', network: false, writable_paths: [keptDir] },
            tools: [{ name: 'attack', description: 'x', exec: ['sh', script, ...attackArgs('tool')].join(' ') }],
            mcp_servers: [{ name: 'box', command: process.execPath, args: [HANG_SERVER] }],
          },
        });
        chmodSync(agent, 0o755);
        const server = await startFakeLlm({
          script: [
            { tool_calls: [{ name: 'attack', arguments: {} }] },
            { tool_calls: [{ name: 'mcp__box__sh', arguments: { script, args: attackArgs('mcp') } }] },
            { content: 'done' },
          ],
        });
        const [file, ...args] = [...identity.prefix, process.execPath, DELTA_BIN, 'run', '--agent', agent, '-m', 'go', '-w', work];
        const result = await runProcess(file!, args, {
          env: { ...process.env, HOME: home, DELTA_API_KEY: 'sk-escape-test', DELTA_BASE_URL: server.baseUrl },
        });
        expect(result.stderr).toContain(`(sandbox: bubblewrap, workspace-write, network off, also writable: ${keptDir})`);
        expect(result.exitCode, result.stderr).toBe(0);

        for (const label of ['tool', 'mcp']) {
          const seen = parseObserved(readFileSync(join(work, `observed-${label}.txt`), 'utf8'));
          expect.soft(Object.fromEntries(seen), label).toEqual({
            capeff: ['0000000000000000'],
            nonewprivs: ['1'],
            'remount-root': ['refused'],
            'remount-delta': ['refused'],
            forge: ['refused'],
            userns: ['refused'],
            // Covered by /dev/null (ECONNREFUSED) or under the sandbox's empty /run (ENOENT): none reached.
            [`socket ${redis.path}`]: [expect.stringMatching(/^E[A-Z]+$/)],
            ...(run ? { [`socket ${run.path}`]: ['ENOENT'] } : {}),
            [`socket ${kept.path}`]: ['hello kept'],
            // A socket of its own, as a session's, works as ever.
            'own-socket': ['own'],
          });
          expect.soft(existsSync(join(outside, `escaped-${label}.txt`)), label).toBe(false);
        }
        expect(redis.connections(), redis.output()).toBe(0);
        expect(run?.connections() ?? 0).toBe(0);
        expect(kept.connections()).toBe(2);

        // The journal holds the engine's events only, and ends with its own.
        const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
        const journal = join(work, '.delta', runId, 'journal.jsonl');
        expect(readFileSync(journal, 'utf8')).not.toContain('FORGED');
        const events = readJournal(journal);
        expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({
          sandbox: { mode: 'workspace-write', network: false },
        });
        expect(events.at(-1)?.type).toBe('ENGINE_END');
        expect(events.filter((event) => event.type === 'ACTION_RESULT').map((event) => (event as { status: string }).status)).toEqual([
          'SUCCESS',
          'SUCCESS',
        ]);
      },
      60_000,
    );
  }
});
