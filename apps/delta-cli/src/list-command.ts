import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { controlDirectory, RunStatus, runKind, workspacesDirectory, type RunKind } from '@delta/journal';
import { agentRuns, type ListedRun, paletteFor, runTable, workspaceRuns } from '@delta/views';
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
  if (agentHome === undefined) return { runs: workspaceRuns(workDir), byAgent: false };
  if (!existsSync(agentHome))
    throw usageError(`The agent directory ${agentHome} does not exist.`, 'Pass the directory that holds agent.yaml.');
  return { runs: agentRuns(agentHome, process.cwd()), byAgent: true };
}

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
  process.stdout.write(runTable(runs, byAgent, paletteFor(process.stdout, process.env)));
  for (const run of runs) if (run.problem) process.stderr.write(`warning: ${run.runId}: ${run.problem}\n`);
  return 0;
}
