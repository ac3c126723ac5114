import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal, readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type RecordedRequest,
  runProcess,
  startFakeLlm,
} from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DELTA_BIN, runDelta } from './test-support.js';

// `delta batch` against the testkit's server: each task makes two `note` tool calls, then answers.

function userText(request: RecordedRequest): string {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  return JSON.stringify(messages.find((message) => message.role === 'user')?.content ?? '');
}

function toolResults(request: RecordedRequest): number {
  return (request.body as { messages: { role: string }[] }).messages.filter((message) => message.role === 'tool').length;
}

/** Called with each request the server answers; a test sets it to wait for a moment of the batch. */
let onRequest: (request: RecordedRequest) => void = () => {};
let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({
    script: (request) => {
      onRequest(request);
      const tools = toolResults(request);
      if (tools < 2) return { tool_calls: [{ name: 'note', arguments: { text: `step ${tools + 1}\n` } }], delay_ms: 20 };
      return { content: `answer to ${JSON.parse(userText(request))}`, delay_ms: 120 };
    },
  });
});
afterEach(async () => {
  onRequest = () => {};
  await cleanupTempDirs();
});
afterAll(() => llm.close());

const agentYaml = {
  name: 'batcher',
  llm: { model: 'fake-model', max_retries: 0 },
  // Unsandboxed: the SIGKILL test expects a tool in flight at the kill to finish on its own (as an
  // unsandboxed tool does); in the sandbox it ends with the killed engine's run, and the model is told.
  sandbox: { mode: 'off' },
  tools: [{ name: 'note', description: 'Append a line to notes.txt', exec: 'tee -a -- notes.txt', stdin: 'text' }],
};

async function setup(tasks: number): Promise<{ agent: string; tasksFile: string; out: string; env: Record<string, string> }> {
  const agent = await createTempAgent({ agentYaml });
  const directory = await createTempDir();
  const tasksFile = join(directory, 'tasks.jsonl');
  const lines = Array.from({ length: tasks }, (_, index) => JSON.stringify({ id: `task-${index + 1}`, message: `do ${index + 1}` }));
  writeFileSync(tasksFile, `${lines.join('\n')}\n`);
  return { agent, tasksFile, out: join(directory, 'out'), env: { DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl } };
}

function runDirectory(out: string, task: string, repeat = 1): string {
  return join(out, task, 'fake-model', String(repeat));
}

/** Starts `delta batch` and resolves with its exit once it ends; `stop` sends it a signal. */
function startBatch(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [DELTA_BIN, 'batch', ...args], {
    env: { ...process.env, DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited };
}

function jsonEvents(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('delta batch', () => {
  it('killed with SIGKILL in the middle, the same command again finishes every run and executes no completed run twice', async () => {
    const { agent, tasksFile, out, env } = await setup(8);
    const args = [tasksFile, '--agent', agent, '--out', out, '--concurrency', '2', '--json'];
    // The moment to kill: two runs have answered and another is between its tool calls.
    const answered = new Set<string>();
    const midRun = new Promise<void>((resolve) => {
      onRequest = (request) => {
        const task = userText(request);
        if (toolResults(request) === 2) answered.add(task);
        else if (answered.size >= 2 && toolResults(request) === 1 && !answered.has(task)) resolve();
      };
    });
    const first = startBatch(args, env);
    await midRun;
    // Give the answer in flight no time: the kill lands while at least one run is between steps.
    first.child.kill('SIGKILL');
    const killed = await first.exited;
    expect(killed.signal).toBe('SIGKILL');

    const tasks = Array.from({ length: 8 }, (_, index) => `task-${index + 1}`);
    const completedBefore = new Map<string, string>();
    const unfinished: string[] = [];
    for (const task of tasks) {
      const workDir = runDirectory(out, task);
      const runId = existsSync(workDir) ? readLatestRunId(workDir) : undefined;
      if (!runId || !existsSync(runPaths(workDir, runId).journal)) continue;
      const journal = readFileSync(runPaths(workDir, runId).journal, 'utf8');
      if (journal.includes('"status":"COMPLETED"')) completedBefore.set(task, journal);
      else unfinished.push(task);
    }
    expect(completedBefore.size).toBeGreaterThanOrEqual(2);
    expect(completedBefore.size).toBeLessThan(8);
    expect(unfinished.length).toBeGreaterThanOrEqual(1);

    const second = startBatch(args, env);
    const rerun = await second.exited;
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    const ends = jsonEvents(rerun.stdout).filter((event) => event.type === 'run_end');
    expect(ends).toHaveLength(8);
    for (const end of ends) {
      const task = (end.key as { task: string }).task;
      expect(end.status, task).toBe('COMPLETED');
      expect(end.action, task).toBe(completedBefore.has(task) ? 'skipped' : unfinished.includes(task) ? 'continued' : 'started');
    }
    for (const task of tasks) {
      const paths = runPaths(runDirectory(out, task), 'run-1');
      expect(readMetadata(paths.metadata).status, task).toBe('COMPLETED');
      const journal = readFileSync(paths.journal, 'utf8');
      // A completed run is not touched again: its journal is byte for byte what it was.
      if (completedBefore.has(task)) expect(journal, task).toBe(completedBefore.get(task));
      const starts = readJournal(paths.journal).filter((event) => event.type === 'ENGINE_START').length;
      expect(starts, task).toBe(unfinished.includes(task) ? 2 : 1);
      // Two tool calls, each run once, across the kill.
      expect(readFileSync(join(runDirectory(out, task), 'notes.txt'), 'utf8'), task).toBe('step 1\nstep 2\n');
    }
  });

  it('runs each task x repeat in OUT/<task>/<model>/<k>/ and prints a line per run and a summary', async () => {
    const { agent, tasksFile, out, env } = await setup(3);
    const result = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--repeat', '2'], { env });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    for (const task of ['task-1', 'task-2', 'task-3']) {
      for (const repeat of [1, 2]) {
        expect(readMetadata(runPaths(runDirectory(out, task, repeat), 'run-1').metadata).status).toBe('COMPLETED');
        expect(result.stdout).toContain(`COMPLETED task-${task.slice(5)} / fake-model / ${repeat} (started, 3 iterations`);
      }
    }
    expect(result.stdout).toContain('6 runs: 6 completed, 0 failed, 0 interrupted, 0 waiting for input');
    expect(result.stdout).toContain(`Report: delta report ${out}`);
  });

  it('Ctrl-C (SIGINT) leaves every started run INTERRUPTED and resumable', async () => {
    const { agent, tasksFile, out, env } = await setup(6);
    const args = [tasksFile, '--agent', agent, '--out', out, '--concurrency', '3', '--json'];
    const inFlight = new Promise<void>((resolve) => {
      onRequest = (request) => {
        if (toolResults(request) === 1) resolve();
      };
    });
    const first = startBatch(args, env);
    await inFlight;
    first.child.kill('SIGINT');
    const stopped = await first.exited;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain('SIGINT received: stopping the batch (send it again to exit at once)');
    const statuses = ['task-1', 'task-2', 'task-3', 'task-4', 'task-5', 'task-6']
      .map((task) => runDirectory(out, task))
      .filter((workDir) => existsSync(workDir))
      .map((workDir) => readMetadata(runPaths(workDir, 'run-1').metadata).status);
    expect(statuses.length).toBeGreaterThanOrEqual(1);
    expect(statuses).toContain('INTERRUPTED');
    expect(statuses.every((status) => status === 'INTERRUPTED' || status === 'COMPLETED')).toBe(true);
    expect(jsonEvents(stopped.stdout).at(-1)).toMatchObject({ type: 'batch_end', stopped: true });

    const again = await startBatch(args, env).exited;
    expect(again.code).toBe(0);
    expect(jsonEvents(again.stdout).at(-1)).toMatchObject({ type: 'batch_end', completed: 6, stopped: false });
  });

  it('names the line of a bad task (exit 2) and refuses another batch in the same --out', async () => {
    const { agent, tasksFile, out, env } = await setup(2);
    writeFileSync(tasksFile, '{"id": "a", "message": "x"}\n{"id": "a b", "message": "y"}\n');
    const bad = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(`${tasksFile}:2 (id): the id "a b" cannot name a directory`);
    expect(bad.stderr).not.toContain('    at ');

    writeFileSync(tasksFile, '{"id": "a", "message": "x"}\n');
    expect((await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env })).exitCode).toBe(0);
    const other = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--repeat', '2'], { env });
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('--repeat 2, the batch has 1');
  });

  it('grades with --grader, reports per model and per task (text, --csv, --json), and re-scores with delta grade', async () => {
    const { agent, tasksFile, out, env } = await setup(3);
    // Passes when the answer names the task's number, which the model does for tasks 1 and 2 only.
    const grader = 'case "$DELTA_FINAL_ANSWER" in *"do 1"*|*"do 2"*) exit 0;; *) exit 1;; esac';
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--grader', grader], { env });
    expect(batch.exitCode).toBe(0);
    expect(batch.stdout).toContain('score 1');
    expect(batch.stdout).toContain('score 0');

    const text = await runDelta(['report', out]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('3 tasks x 1 model x 1 repeat = 3 runs');
    expect(text.stdout).toMatch(/fake-model\s+3\s+3\s+0\s+0\s+67% \[21-94\]\s+3\s/);
    expect(text.stdout).toMatch(/task-3\s+1\s+1\s+0\s+0\s+0% \[0-79\]/);

    const csv = await runDelta(['report', out, '--csv']);
    expect(csv.stdout.split('\n')[1]).toMatch(/^model,fake-model,3,3,0,0,3,pass_rate,0\.6667,/);
    const json = JSON.parse((await runDelta(['report', out, '--json'])).stdout);
    expect(json.by_task.map((task: { score: { mean: number } }) => task.score.mean)).toEqual([1, 1, 0]);
    expect(json.runs).toHaveLength(3);

    const regrade = await runDelta(['grade', out, '--grader', 'echo \'{"score": 0.25}\'']);
    expect(regrade.exitCode).toBe(0);
    expect(regrade.stdout).toContain('3 runs graded.');
    const after = JSON.parse((await runDelta(['report', out, '--json'])).stdout);
    expect(after.by_model[0]).toMatchObject({ metric: 'mean_score', score: { mean: 0.25 } });
  });

  it.skipIf(spawnSync('sh', ['-c', 'command -v script']).status !== 0)(
    'on a terminal, keeps a live line of done, running, failed, ETA and tokens (under script(1), which gives it one)',
    async () => {
      const { agent, tasksFile, out, env } = await setup(3);
      const command = [process.execPath, DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', out]
        .map((word) => `'${word}'`)
        .join(' ');
      // Asynchronously: the model server answers from this process.
      const result = await runProcess('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: env.DELTA_BASE_URL, OPENAI_API_KEY: undefined },
      });
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toMatch(/\d\/3 done · \d running · 0 failed · ETA [^·]+ · [\d,]+ tokens/);
      expect(result.stdout).toContain('3 runs: 3 completed');
    },
  );

  it.skipIf(spawnSync('sh', ['-c', 'command -v script']).status !== 0)(
    'on a terminal with two models, keeps one line per model under the live line: done, failed, pass rate, tokens',
    async () => {
      const { agent, tasksFile, out, env } = await setup(2);
      const command = [process.execPath, DELTA_BIN, 'batch', tasksFile, '--agent', agent, '--out', out]
        .concat(['--model', 'model-a,model-b', '--grader', 'true', '--concurrency', '1'])
        .map((word) => `'${word}'`)
        .join(' ');
      const result = await runProcess('script', ['-qec', command, '/dev/null'], {
        env: { ...process.env, DELTA_API_KEY: 'k', DELTA_BASE_URL: env.DELTA_BASE_URL, OPENAI_API_KEY: undefined },
      });
      expect(result.exitCode).toBe(0);
      // The last drawing of the live block, before it is cleared: the live line, then one line per model.
      const last = result.stdout.lastIndexOf('4/4 done');
      const block = result.stdout.slice(last, result.stdout.indexOf('\r\u001b[2K', last));
      expect(block).toMatch(
        /^4\/4 done · 0 running · 0 failed · pass rate 100% \(4\/4\) · ETA [^·]+ · [\d,]+ tokens · \d+ process(es)?, \d+(\.\d)? [MG]B\r?\n {2}model-a {2}2\/2 done · 0 failed · pass rate 100% \(2\/2\) · [1-9][\d,]* tokens\r?\n {2}model-b {2}2\/2 done · 0 failed · pass rate 100% \(2\/2\) · [1-9][\d,]* tokens/,
      );
    },
  );

  it('--model a,b --repeat 2 over 3 tasks gives 12 runs, each model in its own directory and requests; --set reaches each request and ENGINE_START', async () => {
    const { agent, tasksFile, out, env } = await setup(3);
    const before = llm.requests.length;
    const models = [
      ['model-a', 'model-a'],
      ['org/model:b', 'org_model_b'],
    ] as const;
    const args = [
      'batch',
      tasksFile,
      '--agent',
      agent,
      '--out',
      out,
      '--model',
      'model-a,org/model:b',
      '--repeat',
      '2',
      '--set',
      'llm.temperature=0',
    ];
    const result = await runDelta([...args, '--concurrency', '4'], { env });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('12 runs: 12 completed');
    for (const task of ['task-1', 'task-2', 'task-3']) {
      for (const [model, directory] of models) {
        for (const repeat of [1, 2]) {
          const paths = runPaths(join(out, task, directory, String(repeat)), 'run-1');
          expect(readMetadata(paths.metadata).status).toBe('COMPLETED');
          const start = readJournal(paths.journal).find((event) => event.type === 'ENGINE_START') as {
            model?: string;
            config?: { llm: Record<string, unknown> };
          };
          expect(start.model).toBe(model);
          expect(start.config?.llm).toMatchObject({ model, temperature: 0 });
        }
      }
    }
    const requests = llm.requests.slice(before).map((request) => request.body as { model: string; temperature: number });
    expect(requests).toHaveLength(36);
    expect(requests.filter((body) => body.model === 'model-a')).toHaveLength(18);
    expect(requests.filter((body) => body.model === 'org/model:b')).toHaveLength(18);
    expect(requests.every((body) => body.temperature === 0)).toBe(true);
    const definition = JSON.parse(readFileSync(join(out, '.batch', 'definition.json'), 'utf8'));
    expect(definition.models).toEqual([
      { name: 'model-a', directory: 'model-a', override: true },
      { name: 'org/model:b', directory: 'org_model_b', override: true },
    ]);
    expect(definition.set).toEqual(['llm.temperature=0']);
    // The same command again: nothing to do; with another --set, refused.
    const again = await runDelta([...args, '--json'], { env });
    expect(jsonEvents(again.stdout).at(-1)).toMatchObject({ type: 'batch_end', completed: 12, executed: 0 });
    const other = await runDelta(
      ['batch', tasksFile, '--agent', agent, '--out', out, '--model', 'model-a,org/model:b', '--repeat', '2', '--set', 'llm.temperature=1'],
      { env },
    );
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('--set: ["llm.temperature=1"], the batch has ["llm.temperature=0"]');
  });

  it('a bad --set key exits 2 with the message a bad agent.yaml key gets, saying it came from --set', async () => {
    const { agent, tasksFile, out, env } = await setup(1);
    const misspelled = await createTempAgent({ agentYaml: { ...agentYaml, llm: { model: 'fake-model', temprature: 0 } } });
    const fromFile = await runDelta(['run', '--agent', misspelled, '-w', join(misspelled, 'ws'), '-m', 'hi'], { env });
    expect(fromFile.exitCode).toBe(2);
    const fileMessage = /llm\.temprature: (.*)/.exec(fromFile.stderr)![1]!;
    const fromFlag = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--set', 'llm.temprature=0'], { env });
    expect(fromFlag.exitCode).toBe(2);
    expect(fromFlag.stderr).toContain(`llm.temprature: ${fileMessage} (from --set llm.temprature=0)`);
    expect(fromFlag.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });
});
