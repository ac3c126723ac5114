// Issue 42, fault 5: builtin:regex with a catastrophic pattern blocked the batch's event loop (every run and
// timer stalled, and a resume hung again). The pattern now runs in a worker thread, stopped at its bound.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTestResources, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { REGEX_TIME_LIMIT_MS } from './bounded-regex.js';
import { readGrade } from './grade.js';
import { type BatchEvent, runBatch } from './run-batch.js';

const CATASTROPHIC = '^(\\w+\\s?)*$';
const STUCK_ANSWER = `${'a'.repeat(40)}!`;

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await cleanupTestResources();
});

describe('builtin:regex in a batch', () => {
  it('a catastrophic pattern is a grader error for its run; the other runs complete and grade, and timers keep firing', async () => {
    // The model answers each task with the text after "Say ".
    llm = await startFakeLlm({
      script: (request) => {
        const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
        return { content: (messages.find((message) => message.role === 'user')?.content ?? '').replace(/^Say /, '') };
      },
    });
    const agent = await createTempAgent({ agentYaml: { name: 'sayer', llm: { model: 'fake-model', max_retries: 0 } } });
    const directory = await createTempDir('regex-batch-');
    const tasksFile = join(directory, 'tasks.jsonl');
    const tasks = [
      { id: 'before', message: 'Say 123', expected: '^\\d+$' },
      { id: 'stuck', message: `Say ${STUCK_ANSWER}`, expected: CATASTROPHIC },
      { id: 'after', message: 'Say abc', expected: '^[a-c]+$' },
      { id: 'wrong', message: 'Say xyz', expected: '^\\d+$' },
    ];
    writeFileSync(tasksFile, `${tasks.map((task) => JSON.stringify(task)).join('\n')}\n`);
    const out = join(directory, 'out');

    // A timer of this process: it must keep firing while the stuck answer is graded.
    let gap = 0;
    let ticks = 0;
    let last = Date.now();
    const timer = setInterval(() => {
      const now = Date.now();
      gap = Math.max(gap, now - last);
      last = now;
      ticks += 1;
    }, 10);
    const ended: string[] = [];
    let stuckEnd: number | undefined;
    let summary;
    try {
      summary = await runBatch({
        tasksFile,
        agent,
        out,
        concurrency: 4,
        grader: 'builtin:regex',
        baseUrl: llm.baseUrl,
        apiKey: 'k',
        onBatchEvent: (event: BatchEvent) => {
          if (event.type !== 'run_end') return;
          ended.push(event.key.task);
          if (event.key.task === 'stuck') stuckEnd = ticks;
        },
      });
    } finally {
      clearInterval(timer);
    }
    expect(summary).toMatchObject({ runs: 4, completed: 4, errors: 0 });
    const grade = (task: string) => readGrade(join(out, task, 'fake-model', '1', '.delta', 'run-1'), 'builtin:regex');
    expect(grade('before')).toMatchObject({ score: 1, passed: true });
    expect(grade('after')).toMatchObject({ score: 1, passed: true });
    expect(grade('wrong')).toMatchObject({ score: 0, passed: false });
    expect(grade('stuck')).toMatchObject({
      score: null,
      passed: null,
      error: expect.stringContaining(`builtin:regex: the pattern ran longer than ${REGEX_TIME_LIMIT_MS} ms on this answer`),
    });
    // The timer kept firing through the stuck grade (a second at least): a match on this thread would have
    // held it for the whole match (for ever, on this pattern). Ticks are counted, not timed: the machine may be busy.
    expect(ended.sort()).toEqual(['after', 'before', 'stuck', 'wrong']);
    expect(stuckEnd).toBeGreaterThan(5);
    expect(gap).toBeLessThan(REGEX_TIME_LIMIT_MS * 10);
  });
});
