import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  controlDirectory,
  listRunIds,
  listWorkspaces,
  readMetadata,
  runPaths,
  workspacesDirectory,
  type RunMetadata,
} from '@delta/journal';
import { paletteFor } from './inspect/color.js';
import { formatCost, formatCount, formatDuration } from './inspect/format-numbers.js';
import { usageError } from './usage-error.js';

export interface ListFlags {
  workDir?: string;
  agent?: string;
  json?: boolean;
  first?: boolean;
  format?: string;
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
    const paths = runPaths(workDir, runId);
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
  const runs = listWorkspaces(agentHome).flatMap((name) => runsOf(join(workspacesDirectory(agentHome), name), name));
  return { runs, byAgent: true };
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

/** `delta list`: the runs of a workspace, or of every workspace of an agent, latest first. */
export function listCommand(flags: ListFlags): number {
  const format = listFormat(flags);
  const { runs: found, byAgent } = findRuns(flags);
  // Latest first, by the start time to the millisecond.
  found.sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.runId.localeCompare(a.runId));
  const runs = flags.first ? found.slice(0, 1) : found;
  if (runs.length === 0) {
    process.stderr.write(
      `No runs yet in ${byAgent ? 'the workspaces of this agent' : resolve(flags.workDir ?? '.')}. Start one with \`delta run\`.\n`,
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
        `${JSON.stringify({ run_id: run.runId, work_dir: run.workDir, ...(run.metadata ? { metadata: run.metadata } : { problem: run.problem }) })}\n`,
      );
    }
    return 0;
  }
  const palette = paletteFor(process.stdout);
  const header = [
    'RUN ID',
    ...(byAgent ? ['WORKSPACE'] : []),
    'STATUS',
    'ITER',
    'TOKENS',
    'CACHED',
    'REASONING',
    'COST',
    'STARTED',
    'DURATION',
  ];
  // Cached tokens are part of the prompt tokens, reasoning tokens of the completion tokens: '-' when the server reported none.
  const detail = (count: number | undefined) => (count === undefined ? '-' : formatCount(count));
  const rows = runs.map((run) => {
    const metadata = run.metadata;
    if (!metadata) return [run.runId, ...(byAgent ? [run.workspace] : []), 'UNREADABLE', '-', '-', '-', '-', '-', '-', '-'];
    return [
      run.runId,
      ...(byAgent ? [run.workspace] : []),
      metadata.status,
      `${metadata.iterations}/${metadata.max_iterations}`,
      metadata.usage ? formatCount(metadata.usage.total_tokens) : '-',
      detail(metadata.usage?.cached_tokens),
      detail(metadata.usage?.reasoning_tokens),
      metadata.estimated_cost ? formatCost(metadata.estimated_cost) : '-',
      started(metadata.created_at),
      duration(metadata),
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const statusColumn = header.indexOf('STATUS');
  const colorStatus = (status: string) =>
    status === 'COMPLETED'
      ? palette.green(status)
      : status === 'FAILED' || status === 'UNREADABLE'
        ? palette.red(status)
        : palette.yellow(status);
  const render = (row: string[], isHeader: boolean) =>
    row
      .map((cell, column) => {
        const padded = cell.padEnd(widths[column]!);
        if (isHeader) return palette.bold(padded);
        return column === statusColumn ? colorStatus(cell) + ' '.repeat(widths[column]! - cell.length) : padded;
      })
      .join('  ')
      .trimEnd();
  process.stdout.write(`${render(header, true)}\n`);
  for (const row of rows) process.stdout.write(`${render(row, false)}\n`);
  for (const run of runs) if (run.problem) process.stderr.write(`warning: ${run.runId}: ${run.problem}\n`);
  return 0;
}
