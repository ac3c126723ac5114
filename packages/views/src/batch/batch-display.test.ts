import { describe, expect, it } from 'vitest';
import type { BatchEvent, BatchRunOutcome } from '@delta/experiments';
import type { JournalEvent } from '@delta/journal';
import { createBatchDisplay } from './batch-display.js';

/**
 * A terminal screen, enough for the live block: text, `\n`, `\r`, ESC[2K (erase the line) and ESC[1A (up one
 * line). Returns the lines on screen, as the user sees them.
 */
class Screen {
  private readonly rows: string[] = [''];
  private row = 0;
  private column = 0;

  write(text: string): void {
    for (const token of text.match(/\u001b\[\d*[A-Za-z]|[\s\S]/g) ?? []) {
      if (token === '\n') {
        this.row += 1;
        this.column = 0;
        if (this.rows.length <= this.row) this.rows.push('');
      } else if (token === '\r') this.column = 0;
      else if (token === '\u001b[2K') this.rows[this.row] = '';
      else if (token === '\u001b[1A') this.row = Math.max(0, this.row - 1);
      else if (token.startsWith('\u001b')) throw new Error(`unexpected escape ${JSON.stringify(token)}`);
      else {
        const line = this.rows[this.row]!.padEnd(this.column);
        this.rows[this.row] = line.slice(0, this.column) + token + line.slice(this.column + 1);
        this.column += 1;
      }
    }
  }

  /** The lines on screen, without the blank ones at the bottom. */
  lines(): string[] {
    const lines = this.rows.map((line) => line.trimEnd());
    while (lines.at(-1) === '') lines.pop();
    return lines;
  }
}

function runEnd(task: string, model: string, status: BatchRunOutcome['status'], score?: number, cost?: number): BatchEvent {
  return {
    type: 'run_end',
    key: { task, model, repeat: 1 },
    workDir: `/out/${task}/${model}/1`,
    action: 'started',
    status,
    ...(score === undefined
      ? {}
      : { grade: { score, passed: score === 1, grader: 'g', exit_code: 0, run_id: 'r', graded_at: '2026-01-01T00:00:00.000Z' } }),
    ...(cost === undefined ? {} : { cost }),
  };
}

function thought(tokens: number): JournalEvent {
  return {
    type: 'THOUGHT',
    seq: 1,
    timestamp: '2026-01-01T00:00:00.000Z',
    iteration: 1,
    content: 'x',
    tool_calls: [],
    llm_invocation_ref: '0001',
    usage: { prompt_tokens: tokens - 10, completion_tokens: 10, total_tokens: tokens },
  } as JournalEvent;
}

function start(models: string[], tasks: number, concurrency = 2): BatchEvent {
  return { type: 'batch_start', out: '/out', runs: models.length * tasks, tasks, models, repeat: 1, concurrency };
}

/** A display on a terminal: stdout and stderr go to the same screen, as they do in a terminal (160 columns). */
function terminal(json = false) {
  Object.defineProperty(process.stderr, 'columns', { value: 160, configurable: true });
  const screen = new Screen();
  const out: string[] = [];
  const display = createBatchDisplay(
    { json, terminal: true },
    (text) => {
      out.push(text);
      screen.write(text);
    },
    (text) => screen.write(text),
    // What the batch holds, as /proc would say it (processTreeUsage is tested on its own).
    () => ({ processes: 130, rssBytes: 1.2e9 }),
  );
  return { screen, out, display };
}

describe('delta batch on a terminal', () => {
  it('shows one line per model under the live line: done, failed, pass rate so far, tokens, cost', () => {
    const { screen, display } = terminal();
    display.onBatchEvent(start(['gpt-4o', 'claude'], 3));
    display.onBatchEvent({ type: 'run_start', task: 't1', model: 'gpt-4o', repeat: 1, work_dir: '/out/t1/gpt-4o/1' });
    display.onRunEvent(thought(1200), { model: 'gpt-4o' });
    display.onBatchEvent(runEnd('t1', 'gpt-4o', 'COMPLETED', 1, 0.01));
    display.onBatchEvent({ type: 'run_start', task: 't2', model: 'gpt-4o', repeat: 1, work_dir: '/out/t2/gpt-4o/1' });
    display.onRunEvent(thought(800), { model: 'gpt-4o' });
    display.onBatchEvent(runEnd('t2', 'gpt-4o', 'FAILED', 0, 0.005));
    display.onBatchEvent({ type: 'run_start', task: 't1', model: 'claude', repeat: 1, work_dir: '/out/t1/claude/1' });
    display.onRunEvent(thought(500), { model: 'claude' });

    const lines = screen.lines();
    expect(lines.slice(0, 2)).toEqual(['COMPLETED t1 / gpt-4o / 1 (started, score 1)', 'FAILED    t2 / gpt-4o / 1 (started, score 0)']);
    // The live block is redrawn on the next event; the last drawing is what stays on screen.
    display.onBatchEvent({ type: 'run_start', task: 't2', model: 'claude', repeat: 1, work_dir: '/out/t2/claude/1' });
    expect(screen.lines().slice(2)).toEqual([
      `2/6 done · 2 running · 1 failed · pass rate 50% (1/2) · ETA ${screen.lines()[2]!.split('ETA ')[1]}`,
      '  gpt-4o  2/3 done · 1 failed · pass rate 50% (1/2) · 2,000 tokens · cost 0.0150',
      '  claude  0/3 done · 0 failed · 500 tokens',
    ]);
    expect(screen.lines()[2]).toMatch(/ · 2,500 tokens · cost 0\.0150 · 130 processes, 1\.2 GB$/);
    display.stop();
    // Stopped: the live block is gone, the run lines stay.
    expect(screen.lines()).toEqual(['COMPLETED t1 / gpt-4o / 1 (started, score 1)', 'FAILED    t2 / gpt-4o / 1 (started, score 0)']);
  });

  it('gives a condition (model+NAME) a line of its own, and a mean score when scores are not 0 or 1', () => {
    const { screen, display } = terminal();
    display.onBatchEvent(start(['gpt-4o', 'gpt-4o+prompt-v2'], 2));
    display.onBatchEvent(runEnd('t1', 'gpt-4o+prompt-v2', 'COMPLETED', 0.5));
    display.onBatchEvent(runEnd('t2', 'gpt-4o+prompt-v2', 'COMPLETED', 0.75));
    expect(screen.lines().slice(-2)).toEqual([
      '  gpt-4o            0/2 done · 0 failed · 0 tokens',
      '  gpt-4o+prompt-v2  2/2 done · 0 failed · mean score 0.63 (2 scored) · 0 tokens',
    ]);
    display.stop();
  });

  it('with one model, shows the live line alone, with the pass rate so far', () => {
    const { screen, display } = terminal();
    display.onBatchEvent(start(['gpt-4o'], 2));
    display.onBatchEvent({ type: 'run_start', task: 't1', model: 'gpt-4o', repeat: 1, work_dir: '/out/t1/gpt-4o/1' });
    display.onBatchEvent(runEnd('t1', 'gpt-4o', 'COMPLETED', 1));
    const lines = screen.lines();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^1\/2 done · 0 running · 0 failed · pass rate 100% \(1\/1\) · ETA \S+ · 0 tokens · 130 processes, 1\.2 GB$/);
    display.stop();
  });

  it('estimates the ETA from the runs finished and those still queued at the concurrency: 71 of 200 done at 2 s each is about 32 s', () => {
    let clock = 0;
    const screen = new Screen();
    const display = createBatchDisplay(
      { json: false, terminal: true },
      (text) => screen.write(text),
      (text) => screen.write(text),
      () => ({ processes: 1, rssBytes: 1e8 }),
      () => clock,
    );
    display.onBatchEvent(start(['m'], 200, 8));
    const key = (index: number) => ({ task: `t${index}`, model: 'm', repeat: 1 });
    // Eight at a time, each run 2 s long, until 71 have ended (the 72nd started with the last wave).
    let next = 0;
    const running: number[] = [];
    const startRun = () => {
      display.onBatchEvent({ type: 'run_start', ...key(next), work_dir: `/out/t${next}/m/1` });
      running.push(next);
      next += 1;
    };
    for (let index = 0; index < 8; index += 1) startRun();
    for (let done = 0; done < 71; done += 1) {
      clock += 2000 / 8;
      const index = running.shift()!;
      display.onBatchEvent({ type: 'run_end', key: key(index), workDir: `/out/t${index}/m/1`, action: 'started', status: 'COMPLETED' });
      startRun();
    }
    const line = screen.lines().at(-1)!;
    expect(line).toMatch(/^71\/200 done · 8 running · 0 failed · ETA /);
    // 121 queued and 8 running, at 2 s each and 8 at a time: (121 + about half of 8) x 2 s / 8, about 31 s.
    const seconds = Number(/ETA ([\d.]+)s/.exec(line)?.[1]);
    expect(seconds).toBeGreaterThan(29);
    expect(seconds).toBeLessThan(33);
    display.stop();
  });

  it('counts the processes a run started at once: a sample from before it started is not shown for it', () => {
    let clock = 0;
    let processes = 1;
    const screen = new Screen();
    const display = createBatchDisplay(
      { json: false, terminal: true },
      (text) => screen.write(text),
      (text) => screen.write(text),
      () => ({ processes, rssBytes: processes * 1e7 }),
      () => clock,
    );
    display.onBatchEvent(start(['m'], 100));
    expect(screen.lines().at(-1)).toMatch(/ · 1 process, 10 MB$/);
    // 92 sandboxes start (bubblewrap, its launcher, the tools): the next drawing after their runs started counts them.
    processes = 93 * 4;
    clock += 300;
    for (let index = 0; index < 92; index += 1)
      display.onBatchEvent({ type: 'run_start', task: `t${index}`, model: 'm', repeat: 1, work_dir: '/w' });
    expect(screen.lines().at(-1)).toMatch(/^0\/100 done · 92 running · .* · 372 processes, 3\.7 GB$/);
    display.stop();
  });

  it('with stdout redirected, writes the closing summary to the terminal (stderr) too', () => {
    const out: string[] = [];
    const status: string[] = [];
    const display = createBatchDisplay(
      { json: false, terminal: true, stdoutTerminal: false },
      (text) => out.push(text),
      (text) => status.push(text),
      () => undefined,
    );
    display.onBatchEvent(start(['m'], 1));
    display.onBatchEvent(runEnd('t1', 'm', 'COMPLETED'));
    const summary = {
      type: 'batch_end',
      out: '/out',
      runs: 1,
      completed: 1,
      failed: 0,
      interrupted: 0,
      waiting: 0,
      errors: 0,
      executed: 1,
      stopped: false,
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      cost: 0,
    } as unknown as BatchEvent;
    display.onBatchEvent(summary);
    display.stop();
    const closing = out.find((text) => text.startsWith('1 run: 1 completed'))!;
    expect(closing).toContain('Report: delta report /out');
    expect(status.some((text) => text.includes(closing))).toBe(true);
  });

  it('with --json, writes the events as JSON lines and nothing else', () => {
    const { screen, out, display } = terminal(true);
    const events = [start(['a', 'b'], 1), runEnd('t1', 'a', 'COMPLETED', 1)];
    for (const event of events) display.onBatchEvent(event);
    display.onRunEvent(thought(100), { model: 'a' });
    display.stop();
    expect(out).toEqual(events.map((event) => `${JSON.stringify(event)}\n`));
    expect(screen.lines()).toEqual(events.map((event) => JSON.stringify(event)));
  });
});
