import type { BatchRunKey } from '@delta/experiments';

const keyOf = (key: Pick<BatchRunKey, 'task' | 'model' | 'repeat'>) => `${key.task}\u0000${key.model}\u0000${key.repeat}`;

/**
 * When a batch will be done, from the runs it has finished: each run's own time (its start to its end), the
 * runs still running (each expected to take that long in all), and the runs still queued, taken
 * `concurrency` at a time. Runs left as they were (a resumed batch's completed runs) take no time and teach
 * nothing about the others.
 */
export class BatchEta {
  private readonly started = new Map<string, number>();
  private readonly durations: number[] = [];
  private concurrency = 1;

  constructor(private readonly now: () => number = Date.now) {}

  begin(concurrency: number): void {
    this.concurrency = Math.max(1, concurrency);
  }

  runStarted(key: Pick<BatchRunKey, 'task' | 'model' | 'repeat'>): void {
    this.started.set(keyOf(key), this.now());
  }

  runEnded(key: Pick<BatchRunKey, 'task' | 'model' | 'repeat'>, executed: boolean): void {
    const started = this.started.get(keyOf(key));
    this.started.delete(keyOf(key));
    if (executed && started !== undefined) this.durations.push(this.now() - started);
  }

  /** Milliseconds until the last run ends, with `queued` runs not started yet; undefined before any run has finished. */
  remaining(queued: number): number | undefined {
    if (this.durations.length === 0) return undefined;
    const mean = this.durations.reduce((sum, duration) => sum + duration, 0) / this.durations.length;
    const now = this.now();
    const running = [...this.started.values()].map((started) => Math.max(0, mean - (now - started)));
    const longest = Math.max(0, ...running);
    const work = running.reduce((sum, left) => sum + left, 0) + Math.max(0, queued) * mean;
    return queued <= 0 ? longest : Math.max(longest, work / this.concurrency);
  }
}
