import { runKind, type RunMetadata } from '@delta/journal';
import { type Palette, statusColor } from '../inspect/color.js';
import { formatCost, formatCount, formatDuration } from '../inspect/format-numbers.js';
import type { ListedRun } from './list-runs.js';

/** How a run came to be, for the KIND column: `run`, `replay of <id>`, `fork of <id> @N`. */
function kindLabel(metadata: RunMetadata): string {
  if (metadata.forked_from) return `fork of ${metadata.forked_from.run_id} @${metadata.forked_from.iteration ?? '?'}`;
  return metadata.replay_of ? `replay of ${metadata.replay_of.run_id}` : 'run';
}

/** The task a run was given, on one line, cut to `width` characters. */
function task(metadata: RunMetadata, width = 40): string {
  const line = metadata.initial_message.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

const TOTALS_ORDER = ['COMPLETED', 'FAILED', 'INTERRUPTED', 'WAITING_FOR_INPUT', 'RUNNING', 'UNREADABLE'];

/** The last line of the table: how many runs of each status, their tokens and cost. */
function totalsLine(runs: readonly ListedRun[]): string {
  const counts = new Map<string, number>();
  let tokens = 0;
  const costs = new Map<string, number>();
  for (const run of runs) {
    const status = run.metadata?.status ?? 'UNREADABLE';
    counts.set(status, (counts.get(status) ?? 0) + 1);
    tokens += run.metadata?.usage?.total_tokens ?? 0;
    const cost = run.metadata?.estimated_cost;
    if (cost) costs.set(cost.currency, (costs.get(cost.currency) ?? 0) + cost.amount);
  }
  const statuses = TOTALS_ORDER.filter((status) => counts.has(status))
    .map((status) => `${counts.get(status)} ${status}`)
    .join(', ');
  const parts = [`${runs.length} runs (${statuses})`, `${formatCount(tokens)} tokens`];
  // Prices in agent.yaml name their currency: amounts in different currencies are summed apart.
  if (costs.size > 0) parts.push(`cost ${[...costs].map(([currency, amount]) => formatCost({ amount, currency })).join(' + ')}`);
  return `total: ${parts.join(' · ')}`;
}

function duration(metadata: RunMetadata): string {
  const end = metadata.end_time ?? (metadata.status === 'RUNNING' ? new Date().toISOString() : metadata.updated_at);
  const text = formatDuration(Date.parse(end) - Date.parse(metadata.created_at));
  return metadata.status === 'RUNNING' ? `${text}+` : text;
}

/** "2025-01-02T03:04:05.678Z" -> "2025-01-02 03:04" in local time. */
function started(timestamp: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

// Cached tokens are part of the prompt tokens, reasoning tokens of the completion tokens: '-' when the server reported none.
const detail = (count: number | undefined) => (count === undefined ? '-' : formatCount(count));

/** The columns after RUN ID (and KIND, WORKSPACE) with each one's cell for a run whose metadata could be read. */
const COLUMNS: ReadonlyArray<[string, (metadata: RunMetadata) => string]> = [
  ['STATUS', (metadata) => metadata.status],
  ['ITER', (metadata) => `${metadata.iterations}/${metadata.max_iterations}`],
  ['TOKENS', (metadata) => (metadata.usage ? formatCount(metadata.usage.total_tokens) : '-')],
  ['CACHED', (metadata) => detail(metadata.usage?.cached_tokens)],
  ['REASONING', (metadata) => detail(metadata.usage?.reasoning_tokens)],
  ['COST', (metadata) => (metadata.estimated_cost ? formatCost(metadata.estimated_cost) : '-')],
  ['STARTED', (metadata) => started(metadata.created_at)],
  ['DURATION', duration],
  ['TASK', task],
];

/**
 * `delta list`'s table, latest first as given: RUN ID, KIND (only when a replay or a fork is listed), WORKSPACE
 * (`byAgent`), then the columns above, and with more than one run a line of totals.
 */
export function runTable(runs: readonly ListedRun[], byAgent: boolean, palette: Palette): string {
  // The KIND column only when a replay or a fork is listed: a list of ordinary runs reads as it always did.
  const withKind = runs.some((run) => run.metadata !== undefined && runKind(run.metadata) !== 'run');
  const header = ['RUN ID', ...(withKind ? ['KIND'] : []), ...(byAgent ? ['WORKSPACE'] : []), ...COLUMNS.map(([title]) => title)];
  const rows = runs.map(({ runId, workspace, metadata }) => [
    runId,
    ...(withKind ? [metadata ? kindLabel(metadata) : '-'] : []),
    ...(byAgent ? [workspace] : []),
    ...(metadata ? COLUMNS.map(([, cell]) => cell(metadata)) : ['UNREADABLE', ...COLUMNS.slice(1).map(() => '-')]),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const statusColumn = header.indexOf('STATUS');
  const render = (row: string[], isHeader: boolean) =>
    row
      .map((cell, column) => {
        const padded = cell.padEnd(widths[column]!);
        if (isHeader) return palette.bold(padded);
        return column === statusColumn ? statusColor(palette, cell)(cell) + ' '.repeat(widths[column]! - cell.length) : padded;
      })
      .join('  ')
      .trimEnd();
  const lines = [render(header, true), ...rows.map((row) => render(row, false))];
  if (runs.length > 1) lines.push(palette.dim(totalsLine(runs)));
  return `${lines.join('\n')}\n`;
}
