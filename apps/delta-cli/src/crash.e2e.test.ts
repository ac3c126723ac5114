import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep, modelEnv } from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { DELTA_BIN, runDelta } from './test-support.js';
import { lineCount } from './test-processes.test-support.js';

// A scripted 10-iteration run is killed with SIGKILL at many points (during model calls, during tools,
// between journal writes) and resumed with `delta continue -w`; every run must end COMPLETED with a
// journal a strict reader accepts and exactly one result per tool call.

const ITERATIONS = 10;
const KILLS = 54;
const FINAL_ANSWER = 'All ten steps are done.';

const agentYaml = {
  name: 'crash-target',
  llm: { model: 'm', max_retries: 0 },
  // Unsandboxed: this is about the journal. In the sandbox a killed engine takes its tool down with it.
  sandbox: { mode: 'off' },
  tools: [
    {
      name: 'work',
      description: 'Do one step of work (it takes a moment) and log it',
      // The label is the call id: steps.log shows every call that really ran, so a rerun would show twice.
      shell: 'sleep 0.02; printf -- \'%s\\n\' ${label} >> steps.log; echo "done ${label}"',
    },
  ],
};

/** Decides from the conversation alone, so a resumed run gets a consistent next step. */
function script(request: { body: { messages?: Array<{ role: string }> } }, index: number): ScriptStep {
  const assistants = (request.body.messages ?? []).filter((message) => message.role === 'assistant').length;
  const delay_ms = 10 + (index % 4) * 5;
  if (assistants >= ITERATIONS) return { content: FINAL_ANSWER, delay_ms };
  const calls = assistants % 3 === 0 ? 2 : 1;
  return {
    content: `Step ${assistants + 1}.`,
    delay_ms,
    tool_calls: Array.from({ length: calls }, (_, call) => {
      const id = `call_${assistants + 1}_${call + 1}_r${index}`;
      return { id, name: 'work', arguments: { label: id } };
    }),
  };
}

let server: FakeLlm;
let agent: string;
beforeAll(async () => {
  server = await startFakeLlm({ script });
  agent = await createTempAgent({ agentYaml });
});
afterAll(async () => {
  await server.close();
  await cleanupTempDirs();
});

function latestJournal(work: string): string | undefined {
  const latest = join(work, '.delta', 'LATEST');
  if (!existsSync(latest)) return undefined;
  return join(work, '.delta', readFileSync(latest, 'utf8').trim(), 'journal.jsonl');
}

/** Starts `delta run` and kills it with SIGKILL once the journal has `line` lines, plus `delayMs`. */
function runAndKill(
  work: string,
  env: Record<string, string>,
  line: number,
  delayMs: number,
): Promise<{ killed: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DELTA_BIN, 'run', '--agent', agent, '-m', 'Do ten steps.', '-w', work], {
      env: { ...process.env, DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    let killed = false;
    let exited = false;
    const poll = setInterval(() => {
      const journal = latestJournal(work);
      if (journal === undefined || lineCount(journal) < line) return;
      clearInterval(poll);
      setTimeout(() => {
        if (!exited) killed = child.kill('SIGKILL');
      }, delayMs);
    }, 1);
    child.on('error', reject);
    child.on('exit', (code) => {
      exited = true;
      clearInterval(poll);
      resolve({ killed, code, stderr });
    });
  });
}

function checkJournal(events: readonly JournalEvent[]) {
  expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
  const calls = events.flatMap((event) => (event.type === 'THOUGHT' ? event.tool_calls.map((call) => call.id) : []));
  const results = events.flatMap((event) => (event.type === 'ACTION_RESULT' ? [event.action_id] : []));
  expect([...results].sort()).toEqual([...calls].sort());
  expect(new Set(results).size).toBe(results.length);
}

interface Outcome {
  point: number;
  line: number;
  delayMs: number;
  killed: boolean;
  torn: boolean;
  stoppedWhileRunning: number;
  resumeCode: number | null;
}

async function crashAndResume(point: number, fullLength: number): Promise<Outcome> {
  const line = 1 + (point % fullLength);
  const delayMs = (point * 7) % 13;
  const work = join(await createTempDir('crash-'), 'w');
  const env = modelEnv(server);
  const { killed, code, stderr } = await runAndKill(work, env, line, delayMs);
  const journal = latestJournal(work);
  if (journal === undefined) throw new Error(`point ${point}: delta run exited ${code} without a run: ${stderr}`);
  const before = readJournal(journal, { tolerateTornTail: true });
  const alreadyDone = before.some((event) => event.type === 'ENGINE_END' && event.status === 'COMPLETED');
  // Every fifth crash also leaves a write cut off mid-line, as a crash inside write() would.
  const torn = killed && !alreadyDone && point % 5 === 0;
  if (torn) appendFileSync(journal, '{"seq":999,"type":"ACTION_RES');
  const resume = await runDelta(['continue', '-w', work], { env });
  if (alreadyDone) {
    // Killed after the run finished: there is nothing to resume, and metadata.json agrees with the journal.
    expect(resume.stderr).toContain('Run is COMPLETED. To continue, provide a message using -m/--message');
    expect(resume.exitCode).toBe(2);
  } else {
    expect(resume.stderr, `point ${point} (line ${line} + ${delayMs} ms)`).not.toContain('Error');
    expect(resume.exitCode).toBe(0);
    expect(resume.stdout).toBe(`${FINAL_ANSWER}\n`);
  }

  const events = readJournal(journal);
  checkJournal(events);
  // No model call is made twice for one step, even when the kill came after the final answer.
  expect(events.filter((event) => event.type === 'THOUGHT')).toHaveLength(ITERATIONS + 1);
  const runDir = join(journal, '..');
  expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED' });
  expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
  if (torn) {
    expect(
      events.some((event) => event.type === 'SYSTEM_MESSAGE' && /last line was cut off by a crash \(29 bytes\)/.test(event.content)),
    ).toBe(true);
  }
  // A tool is never run twice: every call id appears at most once in steps.log.
  const ran = existsSync(join(work, 'steps.log')) ? readFileSync(join(work, 'steps.log'), 'utf8').trim().split('\n') : [];
  expect(new Set(ran).size).toBe(ran.length);
  const stopped = events.filter(
    (event) => event.type === 'ACTION_RESULT' && event.observation_content.includes('the run stopped while this tool call was running'),
  );
  return { point, line, delayMs, killed, torn, stoppedWhileRunning: stopped.length, resumeCode: resume.exitCode };
}

describe('crash recovery, end to end', () => {
  it(`survives SIGKILL at ${KILLS} points of a 10-iteration run and finishes every run`, { timeout: 180_000 }, async () => {
    const started = performance.now();
    // The journal of an uninterrupted run: its length spreads the kill points over the whole run.
    const reference = join(await createTempDir('crash-ref-'), 'w');
    const full = await runDelta(['run', '--agent', agent, '-m', 'Do ten steps.', '-w', reference], {
      env: modelEnv(server),
    });
    expect(full.exitCode).toBe(0);
    const fullLength = lineCount(latestJournal(reference)!);
    expect(fullLength).toBe(2 + ITERATIONS + 2 * (ITERATIONS + 4) + 2);

    const outcomes: Outcome[] = [];
    const queue = Array.from({ length: KILLS }, (_, point) => point);
    const worker = async () => {
      for (let point = queue.shift(); point !== undefined; point = queue.shift()) outcomes.push(await crashAndResume(point, fullLength));
    };
    await Promise.all([worker(), worker()]);

    const killed = outcomes.filter((outcome) => outcome.killed);
    expect(killed.length).toBeGreaterThanOrEqual(50);
    // The kills hit tools while they ran, not only the gaps between them.
    expect(killed.filter((outcome) => outcome.stoppedWhileRunning > 0).length).toBeGreaterThanOrEqual(3);
    expect(server.requests.length).toBeGreaterThan(KILLS * ITERATIONS);
    expect(server.requests.filter((request) => request.status !== 200)).toEqual([]);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      `crash test: ${killed.length} kills of ${KILLS} points, ${killed.filter((o) => o.stoppedWhileRunning > 0).length} during a tool, ` +
        `${killed.filter((o) => o.torn).length} torn lines, ${server.requests.length} model requests, ${seconds} s\n`,
    );
  });
});
