import { existsSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  controlDirectory,
  listOriginWorkspaces,
  listRunIds,
  listWorkspaces,
  originDirectory,
  readMetadata,
  readOtherWorkspaces,
  RunStatus,
  runKind,
  findRunPaths,
  workspacesDirectory,
  type RunKind,
  type RunMetadata,
} from '@delta/journal';
import { paletteFor, statusColor } from './inspect/color.js';
import { formatCost, formatCount, formatDuration } from './inspect/format-numbers.js';
import { usageError } from './usage-error.js';

export interface ListFlags {
  workDir?: string;
  agent?: string;
  json?: boolean;
  first?: boolean;
  format?: string;
  status?: string;
  kind?: string;
}

/** `a, b,,c` -> ['a', 'b', 'c']. */
function commaList(value: string): string[] {
  return String(value)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const KINDS: readonly RunKind[] = ['run', 'replay', 'fork'];

/** `--kind run,replay,fork|all`; undefined: every kind in a workspace, the ordinary runs alone with --agent. */
function kindFilter(value: string | undefined, byAgent: boolean): Set<RunKind> {
  if (value === undefined) return new Set(byAgent ? ['run'] : KINDS);
  const wanted = commaList(value).map((kind) => kind.toLowerCase());
  if (wanted.length === 1 && wanted[0] === 'all') return new Set(KINDS);
  if (wanted.length === 0 || wanted.some((kind) => !KINDS.includes(kind as RunKind))) {
    throw usageError(
      `--kind takes run, replay, fork (separated by commas) or all, got "${value}".`,
      "Replays (delta replay) and forks (delta fork) are kept apart from the agent's runs: --kind replay,fork lists them.",
    );
  }
  return new Set(wanted as RunKind[]);
}

/** How a run came to be, for the KIND column: `run`, `replay of <id>`, `fork of <id> @N`. */
function kindLabel(metadata: RunMetadata): string {
  if (metadata.forked_from) return `fork of ${metadata.forked_from.run_id} @${metadata.forked_from.iteration ?? '?'}`;
  return metadata.replay_of ? `replay of ${metadata.replay_of.run_id}` : 'run';
}

/** `--status COMPLETED,FAILED`: the statuses to keep, any case; undefined keeps every run. */
function statusFilter(value: string | undefined): Set<string> | undefined {
  if (value === undefined) return undefined;
  const wanted = commaList(value).map((status) => status.toUpperCase());
  const unknown = wanted.filter((status) => !RunStatus.options.includes(status as RunStatus) && status !== 'UNREADABLE');
  if (wanted.length === 0 || unknown.length > 0) {
    throw usageError(
      `--status takes run statuses separated by commas, got "${value}".`,
      `The statuses: ${RunStatus.options.join(', ')} (and UNREADABLE for runs whose metadata.json cannot be read). For example: --status failed,interrupted`,
    );
  }
  return new Set(wanted);
}

/** `--format text|json|raw`; `--json` is `--format json`. */
function listFormat(flags: ListFlags): 'text' | 'json' | 'raw' {
  const format = flags.format === undefined ? (flags.json ? 'json' : 'text') : String(flags.format);
  if (format !== 'text' && format !== 'json' && format !== 'raw') {
    throw usageError(
      `--format must be text, json or raw, got "${format}".`,
      '--format raw prints run ids one per line, --format json one JSON object per run, --format text (the default) a table.',
    );
  }
  if (flags.json && format !== 'json') throw usageError(`--json and --format ${format} contradict each other.`, 'Give one of them.');
  return format;
}

interface ListedRun {
  runId: string;
  /** When the run started: metadata.json's created_at, else (a run being created) its directory's time. */
  startedAt: string;
  workDir: string;
  workspace: string;
  metadata?: RunMetadata;
  problem?: string;
}

function runsOf(workDir: string, workspace: string): ListedRun[] {
  return listRunIds(workDir).map((runId) => {
    const paths = findRunPaths(workDir, runId);
    try {
      const metadata = readMetadata(paths.metadata);
      return { runId, startedAt: metadata.created_at, workDir, workspace, metadata };
    } catch (error) {
      const startedAt = statSync(paths.runDir, { throwIfNoEntry: false })?.mtime.toISOString() ?? '';
      return { runId, startedAt, workDir, workspace, problem: error instanceof Error ? error.message : String(error) };
    }
  });
}

function findRuns(flags: ListFlags): { runs: ListedRun[]; byAgent: boolean } {
  if (flags.agent !== undefined && flags.workDir !== undefined) {
    throw usageError('delta list takes either -w/--work-dir or --agent, not both.', 'Use --agent DIR for every workspace of an agent.');
  }
  const workDir = resolve(flags.workDir ?? '.');
  // In an agent directory without runs of its own, list the agent's workspaces.
  const agentHome =
    flags.agent !== undefined
      ? resolve(flags.agent)
      : !existsSync(controlDirectory(workDir)) && existsSync(workspacesDirectory(workDir))
        ? workDir
        : undefined;
  if (agentHome === undefined) return { runs: runsOf(workDir, '.'), byAgent: false };
  if (!existsSync(agentHome))
    throw usageError(`The agent directory ${agentHome} does not exist.`, 'Pass the directory that holds agent.yaml.');
  const own = listWorkspaces(agentHome).flatMap((name) => runsOf(join(workspacesDirectory(agentHome), name), name));
  // Replays and forks made in their own places (<agent>/replays/R001, <agent>/forks/F001), never among its workspaces.
  const made = (['replay', 'fork'] as const).flatMap((kind) =>
    listOriginWorkspaces(agentHome, kind).flatMap((name) =>
      runsOf(join(originDirectory(agentHome, kind), name), relative(agentHome, join(originDirectory(agentHome, kind), name))),
    ),
  );
  // Workspaces given with -w: listed by delta run in OTHER_WORKSPACES. Another agent may have run there
  // too; only this agent's runs are its own (a run whose metadata cannot be read is shown, to be looked at).
  const others = readOtherWorkspaces(agentHome)
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => runsOf(dir, relative(process.cwd(), dir) || '.'))
    .filter((run) => run.metadata === undefined || resolve(run.metadata.agent_home) === agentHome);
  return { runs: [...own, ...made, ...others], byAgent: true };
}

/** The task a run was given, on one line, cut to `width` characters. */
function task(metadata: RunMetadata, width = 40): string {
  const line = metadata.initial_message.replace(/\s+/g, ' ').trim();
  return line.length <= width ? line : `${line.slice(0, width - 1)}…`;
}

const TOTALS_ORDER = ['COMPLETED', 'FAILED', 'INTERRUPTED', 'WAITING_FOR_INPUT', 'RUNNING', 'UNREADABLE'];

/** The last line of the table: how many runs of each status, their tokens and cost. */
function totalsLine(runs: ListedRun[]): string {
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

/** `delta list`: the runs of a workspace, or of every workspace of an agent (with those it ran in by -w), latest first. */
export function listCommand(flags: ListFlags): number {
  const format = listFormat(flags);
  const statuses = statusFilter(flags.status);
  const { runs: every, byAgent } = findRuns(flags);
  const kinds = kindFilter(flags.kind, byAgent);
  const all = every.filter((run) => kinds.has(run.metadata ? runKind(run.metadata) : 'run'));
  const found = statuses ? all.filter((run) => statuses.has(run.metadata?.status ?? 'UNREADABLE')) : all;
  const hidden = every.length - all.length;
  if (hidden > 0 && flags.kind === undefined && flags.format !== 'raw') {
    process.stderr.write(
      `note: ${hidden} replay or fork run${hidden === 1 ? ' is' : 's are'} kept apart and not listed; --kind all lists them too\n`,
    );
  }
  // Latest first, by the start time to the millisecond.
  found.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId));
  const runs = flags.first ? found.slice(0, 1) : found;
  if (runs.length === 0) {
    const where = byAgent ? 'the workspaces of this agent' : resolve(flags.workDir ?? '.');
    process.stderr.write(
      all.length > 0
        ? `None of the ${all.length} runs in ${where} is ${[...statuses!].join(' or ')}.\n`
        : `No runs yet in ${where}. Start one with \`delta run\`.${byAgent ? ' (A batch keeps its runs under its --out: `delta report OUT`, or `delta list -w OUT/<task>/<model>/<k>`.)' : ''}\n`,
    );
    return 0;
  }
  if (format === 'raw') {
    process.stdout.write(`${runs.map((run) => run.runId).join('\n')}\n`);
    return 0;
  }
  if (format === 'json') {
    for (const run of runs) {
      process.stdout.write(
        `${JSON.stringify({ run_id: run.runId, work_dir: run.workDir, ...(run.metadata ? { kind: runKind(run.metadata), metadata: run.metadata } : { problem: run.problem }) })}\n`,
      );
    }
    return 0;
  }
  const palette = paletteFor(process.stdout);
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
  process.stdout.write(`${render(header, true)}\n`);
  for (const row of rows) process.stdout.write(`${render(row, false)}\n`);
  if (runs.length > 1) process.stdout.write(`${palette.dim(totalsLine(runs))}\n`);
  for (const run of runs) if (run.problem) process.stderr.write(`warning: ${run.runId}: ${run.problem}\n`);
  return 0;
}
