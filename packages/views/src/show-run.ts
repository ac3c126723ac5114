import { join } from 'node:path';
import type { listLayerChanges } from '@delta/command-runner';
import {
  readMetadata,
  type EngineStartEvent,
  type JournalEvent,
  type RunPaths,
  type SystemMessageEvent,
  type ThoughtEvent,
} from '@delta/journal';
import { agentVersionLines, type FingerprintTools } from './inspect/agent-version.js';
import { formatCost, formatCount, formatDuration, formatTokensInOut } from './inspect/format-numbers.js';
import { readRunJournal } from './inspect/run-records.js';
import type { ShowOutput } from './show-output.js';

/** What `delta show run` uses of the engine and the command runner, passed in so that this module loads neither. */
export interface ShowRunTools extends FingerprintTools {
  listLayerChanges: typeof listLayerChanges;
}

/**
 * `delta show run`: the run's totals from metadata.json (tokens with their cached and reasoning parts,
 * the estimated cost and the prices it used), then each model call's tokens and the retries, from the journal.
 */
export function showRun(paths: RunPaths, output: ShowOutput, options: { verbose?: boolean; tools: ShowRunTools }): number {
  const { palette, line: write, heading } = output;
  const metadata = readMetadata(paths.metadata);
  const journal = readRunJournal(paths);
  heading(`run ${metadata.run_id} (agent ${metadata.agent_name})`);
  const end = metadata.end_time ?? metadata.updated_at;
  write(
    `${metadata.status}, ${metadata.iterations} of ${metadata.max_iterations} iterations, ${formatDuration(Date.parse(end) - Date.parse(metadata.created_at))}, started ${metadata.created_at}`,
  );
  write(`task: ${metadata.initial_message}`);
  if (metadata.status_reason) write(`reason: ${metadata.status_reason}`);
  if (metadata.error) write(palette.red(`error: ${metadata.error}`));
  const usage = metadata.usage;
  write(usage ? `tokens ${formatCount(usage.total_tokens)}: ${formatTokensInOut(usage)}` : 'tokens: none reported');
  const cost = metadata.estimated_cost;
  if (cost) {
    const cached = cost.cached_input_per_million === undefined ? '' : `, cached input ${cost.cached_input_per_million}`;
    write(
      `estimated cost ${formatCost(cost)} (per million tokens: input ${cost.input_per_million}${cached}, output ${cost.output_per_million})`,
    );
  }
  const retries = journal.filter(
    (event): event is SystemMessageEvent => event.type === 'SYSTEM_MESSAGE' && event.model_retry !== undefined,
  );
  write(`model retries: ${retries.length}`);
  const starts = journal.filter((event): event is EngineStartEvent => event.type === 'ENGINE_START');
  for (const line of agentVersionLines(starts, options.verbose === true, options.tools)) write(line);
  for (const line of environmentLines(paths, starts[0], metadata.limits_hit, options.verbose === true, options.tools)) write(line);

  const thoughts = journal.filter((event): event is ThoughtEvent => event.type === 'THOUGHT');
  if (thoughts.length > 0) showModelCalls(output, thoughts, retries);
  showConfiguration(output, journal);
  return 0;
}

/**
 * Where the run came from (a fork or a replay of another run) and the effective configuration its latest
 * engine used: ENGINE_START's `config`, agent.yaml after imports, defaults and overrides, and the endpoint.
 */
function showConfiguration({ palette, line: write, heading }: ShowOutput, journal: JournalEvent[]): void {
  const starts = journal.filter((event): event is EngineStartEvent => event.type === 'ENGINE_START');
  const latest = starts.at(-1);
  for (const [key, label] of [
    ['forked_from', 'forked from'],
    ['replay_of', 'replay of'],
  ] as const) {
    const origin = starts[0]?.[key] ?? latest?.[key];
    if (origin !== undefined) write(`${label} ${JSON.stringify(origin)}`);
  }
  heading(`effective configuration${starts.length > 1 ? ` (engine start ${starts.length} of ${starts.length})` : ''}`);
  write(latest?.config ? JSON.stringify(latest.config, null, 2) : palette.dim('(not recorded by the engine that ran it)'));
}

function showModelCalls({ line: write, heading }: ShowOutput, thoughts: ThoughtEvent[], retries: SystemMessageEvent[]): void {
  heading('model calls');
  for (const [index, thought] of thoughts.entries()) {
    const tokens = thought.usage ? formatTokensInOut(thought.usage) : 'no token count';
    const retried = retries.filter((event) => event.model_retry!.llm_invocation_ref === thought.llm_invocation_ref).length;
    const notes = [
      tokens,
      ...(retried > 0 ? [`${retried} ${retried === 1 ? 'retry' : 'retries'}`] : []),
      ...(thought.reasoning ? ['reasoning'] : []),
    ];
    write(`${String(index + 1).padStart(3)}  ${thought.llm_invocation_ref}  iteration ${thought.iteration}: ${notes.join(', ')}`);
  }
}

/**
 * The run's image, what its tools changed outside the workspace (its own layer: the first 20, every one
 * with -v), and the limits it hit.
 */
function environmentLines(
  paths: RunPaths,
  start: EngineStartEvent | undefined,
  hit: readonly string[] | undefined,
  verbose: boolean,
  tools: Pick<ShowRunTools, 'listLayerChanges'>,
): string[] {
  const lines: string[] = [];
  const image = start?.sandbox?.image as { reference?: string; digest?: string; workdir?: string } | undefined;
  if (image?.reference) {
    lines.push(`image ${image.reference} (${image.digest}), workspace at ${image.workdir}`);
    const { changes, more } = tools.listLayerChanges(join(paths.runDir, 'layer'), verbose ? 100_000 : 20);
    lines.push(
      `changed outside the workspace: ${changes.length === 0 ? 'nothing' : `${changes.length}${more ? '+' : ''} path${changes.length === 1 && !more ? '' : 's'}`}`,
    );
    for (const change of changes) lines.push(`  ${change.change === 'deleted' ? 'deleted' : 'written'} ${change.path}`);
    if (more) lines.push('  ... (all of them with -v)');
  }
  if (hit && hit.length > 0) lines.push(`limits hit: ${hit.join(', ')}`);
  return lines;
}
