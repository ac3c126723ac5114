import { formatBytes, type ProcessTreeUsage, processTreeUsage } from './process-tree.js';
import type { BatchEvent, BatchRunKey, BatchRunOutcome, BatchSummary } from '@delta/experiments';
import type { JournalEvent } from '@delta/journal';
import { formatCount, formatDuration } from '../inspect/format-numbers.js';
import { fitWidth } from '../progress/status-line.js';
import { BatchEta } from './batch-eta.js';
import { ModelLines, scoreText } from './batch-model-lines.js';
import { unenforcedLimitWarning } from './limit-warning.js';

/** `t1 / gpt-4o / 1`, as @delta/experiments' describeKey names a run (this module loads no experiments code). */
const describeKey = (key: BatchRunKey) => `${key.task} / ${key.model} / ${key.repeat}`;

/**
 * How `delta batch` shows its progress: JSON events, plain lines, or on a terminal a live line with, when
 * the batch has more than one model, one line per model under it.
 */
export interface BatchDisplay {
  onBatchEvent: (event: BatchEvent) => void;
  onRunEvent: (event: JournalEvent, key?: Pick<BatchRunKey, 'model'>) => void;
  stop: () => void;
}

/** One line per run that ended: "COMPLETED t1 / gpt-4o / 1 (started, 3 iterations, 1,234 tokens, score 1)". */
export function describeOutcome(outcome: BatchRunOutcome): string {
  if (outcome.error !== undefined) return `ERROR     ${describeKey(outcome.key)}: ${outcome.error}`;
  const details = [
    outcome.action,
    ...(outcome.iterations === undefined ? [] : [`${formatCount(outcome.iterations)} iteration${outcome.iterations === 1 ? '' : 's'}`]),
    ...(outcome.usage ? [`${formatCount(outcome.usage.total_tokens)} tokens`] : []),
    ...(outcome.grade ? [outcome.grade.score === null ? `grader error: ${outcome.grade.error}` : `score ${outcome.grade.score}`] : []),
    ...(outcome.reason && outcome.status !== 'COMPLETED' ? [outcome.reason] : []),
    ...(outcome.limitsHit && outcome.limitsHit.length > 0 ? [`limits hit: ${outcome.limitsHit.join(', ')}`] : []),
  ];
  const paused = outcome.status === 'WAITING_FOR_INPUT' ? ` — answer with: delta continue -w ${outcome.workDir} -m "..."` : '';
  return `${outcome.status.padEnd(9)} ${describeKey(outcome.key)} (${details.join(', ')})${paused}`;
}

/** The closing lines: counts, tokens, cost, and what to do next. */
export function describeSummary(summary: BatchSummary, elapsedMs: number): string {
  const lines = [
    `${summary.runs} run${summary.runs === 1 ? '' : 's'}: ${summary.completed} completed, ${summary.failed} failed, ${summary.limited ? `${summary.limited} ended at a limit, ` : ''}${summary.interrupted} interrupted, ${summary.waiting} waiting for input${summary.errors ? `, ${summary.errors} not executed` : ''} (${summary.executed} executed by this command in ${formatDuration(elapsedMs)}; ${formatCount(summary.usage.total_tokens)} tokens${summary.cost > 0 ? `, cost ${summary.cost.toFixed(4)}` : ''})`,
  ];
  if (summary.stopped) lines.push('Stopped: run the same command again to resume the batch.');
  else if (summary.interrupted > 0) lines.push('Run the same command again to continue the interrupted runs.');
  if (summary.failed > 0 || summary.limited) {
    const which =
      summary.failed > 0 && summary.limited
        ? 'failed runs and those ended at a limit'
        : summary.failed > 0
          ? 'failed runs'
          : 'runs ended at a limit';
    lines.push(`Add --retry-failed to run the ${which} again.`);
  }
  lines.push(`Report: delta report ${summary.out}`);
  return `${lines.join('\n')}\n`;
}

/** `130 processes, 1.2 GB`: what the batch holds on this machine. */
function heldText(usage: ProcessTreeUsage | undefined): string[] {
  return usage === undefined ? [] : [`${usage.processes} process${usage.processes === 1 ? '' : 'es'}, ${formatBytes(usage.rssBytes)}`];
}

/**
 * `mode.terminal`: stderr is a terminal (the live block); `mode.stdoutTerminal`: stdout is one too. When it is
 * not (redirected to a file), the closing summary is written to stderr as well, so that it stays on the screen.
 * The live block fits stderr's width.
 */
export function createBatchDisplay(
  mode: { json: boolean; terminal: boolean; stdoutTerminal?: boolean },
  write: (text: string) => void,
  writeStatus: (text: string) => void,
  usage: () => ProcessTreeUsage | undefined = processTreeUsage,
  now: () => number = Date.now,
): BatchDisplay {
  const started = now();
  const eta = new BatchEta(now);
  // What the batch holds (processes, memory), read from /proc once a second, and again soon after a run
  // starts or ends: a sample taken before its sandbox started must not stand for it.
  let held: { at: number; usage: ProcessTreeUsage | undefined } | undefined;
  let changedAt = now();
  const holding = () => {
    const age = held === undefined ? Number.POSITIVE_INFINITY : now() - held.at;
    if (held === undefined || age >= 1000 || (held.at <= changedAt && age >= 200)) held = { at: now(), usage: usage() };
    return held.usage;
  };
  const counts = { total: 0, done: 0, running: 0, failed: 0, waiting: 0, executed: 0, tokens: 0, cost: 0 };
  const models = new ModelLines();
  // How many lines the live block has on the screen now (the cursor is at the end of its last line).
  let shown = 0;
  const erase = () => (shown > 0 ? `\r\u001b[2K${'\u001b[1A\u001b[2K'.repeat(shown - 1)}` : '');
  const clear = () => {
    if (shown > 0) writeStatus(erase());
    shown = 0;
  };
  const draw = () => {
    if (!mode.terminal || mode.json) return;
    const left = eta.remaining(counts.total - counts.done - counts.running);
    const line = [
      `${counts.done}/${counts.total} done`,
      `${counts.running} running`,
      `${counts.failed} failed`,
      ...(counts.waiting ? [`${counts.waiting} waiting`] : []),
      ...(scoreText(models.allScores()) === '' ? [] : [scoreText(models.allScores())]),
      `ETA ${left === undefined ? '-' : formatDuration(left)}`,
      `${formatCount(counts.tokens)} tokens`,
      ...(counts.cost > 0 ? [`cost ${counts.cost.toFixed(4)}`] : []),
      ...heldText(holding()),
    ].join(' · ');
    // With one model its line would say what the live line says: it has none.
    const lines = [line, ...(models.size > 1 ? models.lines() : [])];
    const width = Math.max(20, (process.stderr.columns || 100) - 1);
    writeStatus(`${erase() || '\r'}${lines.map((text) => fitWidth(text, width)).join('\n')}`);
    shown = lines.length;
  };
  const timer = mode.terminal && !mode.json ? setInterval(draw, 500) : undefined;
  timer?.unref();
  return {
    onBatchEvent(event) {
      if (mode.json) write(`${JSON.stringify(event)}\n`);
      if (event.type === 'batch_limits') {
        // Once for the whole batch, whatever the mode: a limit it cannot hold is never dropped silently.
        for (const line of event.limits) if (!line.enforced) writeStatus(`${unenforcedLimitWarning(line)}\n`);
      } else if (event.type === 'batch_start') {
        counts.total = event.runs;
        eta.begin(event.concurrency);
        models.start(event.models, event.runs);
      } else if (event.type === 'run_start') {
        counts.running += 1;
        eta.runStarted(event);
        changedAt = now();
      } else if (event.type === 'run_end') {
        counts.running -= 1;
        eta.runEnded(event.key, event.action !== 'skipped');
        changedAt = now();
        counts.done += 1;
        if (event.action !== 'skipped') counts.executed += 1;
        if (event.status === 'FAILED' || event.error !== undefined) counts.failed += 1;
        if (event.status === 'WAITING_FOR_INPUT') counts.waiting += 1;
        counts.cost += event.cost ?? 0;
        models.end(event);
        if (!mode.json && (event.action !== 'skipped' || event.status !== 'COMPLETED')) {
          clear();
          write(`${describeOutcome(event)}\n`);
        }
      } else if (event.type === 'batch_end') {
        clear();
        const summary = describeSummary(event, now() - started);
        if (!mode.json) write(summary);
        // stdout went to a file (or a pipe): the person at the terminal still sees how the batch ended.
        if (mode.terminal && mode.stdoutTerminal === false) writeStatus(summary);
      }
      draw();
    },
    onRunEvent(event, key) {
      if (event.type !== 'THOUGHT' || !event.usage) return;
      counts.tokens += event.usage.total_tokens;
      if (key) models.addTokens(key.model, event.usage.total_tokens);
    },
    stop() {
      if (timer) clearInterval(timer);
      clear();
    },
  };
}
