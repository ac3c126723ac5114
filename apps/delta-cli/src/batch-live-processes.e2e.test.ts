import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { probeBubblewrap } from '@delta/command-runner';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, runProcess, startFakeLlm } from '@delta/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELTA_BIN } from './test-support.js';

// delta batch's live line on a real terminal (script(1)), with real sandboxes: while three runs' tools are
// running in their sandboxes, the processes it counts are the whole tree (the engine, each bubblewrap, each
// sandbox's delta-sandbox-launcher and the tools), not the engine alone.

const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
const noScript = spawnSync('sh', ['-c', 'command -v script']).status !== 0;
if ((!probe.ok && unavailable) || noScript) {
  console.warn(
    `\n!!!!!!!!\n!!! SKIPPING the delta batch live processes test: ${noScript ? 'script(1) is missing' : `bubblewrap could not be installed (${unavailable})`}.\n!!!!!!!!\n`,
  );
}

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({
    script: (request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      return messages.some((message) => message.role === 'tool')
        ? { content: 'released' }
        : { tool_calls: [{ name: 'hold', arguments: {} }] };
    },
  });
});
afterAll(async () => {
  await llm.close();
  await cleanupTempDirs();
});

describe('delta batch on a terminal, sandboxed', () => {
  it.skipIf((!probe.ok && unavailable) || noScript)(
    "counts every process of the batch's tree while its runs' tools run in their sandboxes",
    async () => {
      const agent = await createTempAgent({
        agentYaml: {
          name: 'holder',
          llm: { model: 'fake-model', max_retries: 0 },
          sandbox: { mode: 'workspace-write' },
          // Each tool says it started, then holds its run until the test releases it.
          tools: [{ name: 'hold', description: 'Hold', shell: 'touch started; while [ ! -e release ]; do sleep 0.05; done; echo held' }],
        },
      });
      const directory = await createTempDir();
      const tasksFile = join(directory, 'tasks.jsonl');
      writeFileSync(tasksFile, `${[1, 2, 3].map((n) => JSON.stringify({ id: `t${n}`, message: `hold ${n}` })).join('\n')}\n`);
      const out = join(directory, 'out');
      const command = [process.execPath, DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', out, '--concurrency', '3']
        .map((word) => `'${word}'`)
        .join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl, OPENAI_API_KEY: undefined },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let screen = '';
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const runs = [1, 2, 3].map((n) => join(out, `t${n}`, 'fake-model', '1'));
      // The live line once all three tools hold their runs: every process of the tree counted.
      const counted = new Promise<number>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          screen += chunk.toString('utf8');
          if (!runs.every((run) => existsSync(join(run, 'started')))) return;
          const lines = screen.split(/\r|\n/).filter((line) => line.includes('3 running'));
          const last = lines.at(-1);
          const processes = Number(/ (\d+) processes,/.exec(last ?? '')?.[1] ?? 0);
          // Seen once its sample is younger than the three sandboxes: then it can no longer read low.
          if (processes >= 13) resolve(processes);
        });
      });
      try {
        const processes = await counted;
        // The engine, and per run: bubblewrap, the sandbox's launcher and its child, the tool's shell.
        expect(processes).toBeGreaterThanOrEqual(1 + 3 * 4);
      } finally {
        for (const run of runs) writeFileSync(join(run, 'release'), '');
      }
      expect(await exited).toBe(0);
      expect(screen).toContain('3 runs: 3 completed');
    },
    60_000,
  );

  it.skipIf(noScript)('with stdout redirected to a file, still ends with the summary on the terminal (stderr)', async () => {
    const agent = await createTempAgent({ agentYaml: { name: 'quick', llm: { model: 'fake-model', max_retries: 0 } } });
    const directory = await createTempDir();
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'hi' })}\n`);
    const lines = join(directory, 'lines.txt');
    const command = `${[process.execPath, DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', join(directory, 'out')]
      .map((word) => `'${word}'`)
      .join(' ')} > '${lines}'`;
    const result = await runProcess('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl, OPENAI_API_KEY: undefined },
    });
    expect(result.exitCode).toBe(0);
    // The file has the run's line and the summary; the terminal has the summary too.
    expect(readFileSync(lines, 'utf8')).toMatch(/^COMPLETED t1 \/ fake-model \/ 1 [\s\S]*^1 run: 1 completed/m);
    expect(result.stdout).toContain('1 run: 1 completed, 0 failed');
    expect(result.stdout).toContain(`Report: delta report ${join(directory, 'out')}`);
    expect(result.stdout).not.toContain('COMPLETED t1');
  });
});
