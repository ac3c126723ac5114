import type { ActionRequestEvent, ActionResultEvent, JournalEvent, ThoughtEvent } from '@delta/journal';
import { countOf, formatCost, formatCount, formatDuration, formatTokensInOut } from '../inspect/format-numbers.js';
import type { RunView } from './collect-run.js';
import { escapeHtml as esc } from './escape-html.js';
import { hideAnswers } from './hide-answers.js';
import { htmlPage } from './html-page.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';
import { renderRequestChat } from './render-request.js';
import { callOutcome, embedded, happensDuringCall, renderDuringCall, renderLine, renderToolCall } from './render-tool-call.js';
import type { CallOutcome } from './render-tool-call.js';

interface IterationTimes {
  iteration: number;
  modelMs: number;
  tools: Array<{ name: string; ms: number; failed: boolean }>;
  tokens?: number;
  /** The calls the model asked for, and what became of those with a result. */
  requested: number;
  outcomes: Record<CallOutcome, number>;
}

/**
 * Pairs each ACTION_REQUEST with the next ACTION_RESULT of the same call id (ids can repeat across
 * responses), and gives each call the hook runs and system messages recorded between the two: calls run one at a time.
 */
function pairCalls(events: JournalEvent[]) {
  const results = new Map<ActionRequestEvent, ActionResultEvent>();
  const during = new Map<ActionRequestEvent, JournalEvent[]>();
  const open = new Map<string, ActionRequestEvent>();
  let current: { request: ActionRequestEvent; events: JournalEvent[] } | undefined;
  for (const event of events) {
    if (event.type === 'ACTION_REQUEST') {
      open.set(event.action_id, event);
      current = { request: event, events: [] };
    } else if (event.type === 'ACTION_RESULT') {
      const request = open.get(event.action_id);
      if (request) {
        results.set(request, event);
        open.delete(event.action_id);
        if (current?.request === request) during.set(request, current.events);
      }
      current = undefined;
    } else if (current && happensDuringCall(event)) current.events.push(event);
    else current = undefined;
  }
  return { results, during };
}

/** "3 tool calls (1 ran, 2 rejected)": what the model asked for, and what became of it when not all ran. */
function callCount(entry: IterationTimes): string {
  const { ran, rejected, blocked } = entry.outcomes;
  const requested = Math.max(entry.requested, ran + rejected + blocked);
  if (requested === 0) return '';
  const unanswered = requested - ran - rejected - blocked;
  const parts = [
    `${ran} ran`,
    ...(rejected ? [`${rejected} rejected`] : []),
    ...(blocked ? [`${blocked} blocked`] : []),
    ...(unanswered ? [`${unanswered} without a result`] : []),
  ];
  return ` · ${countOf(requested, 'tool call')}${ran === requested ? '' : ` (${parts.join(', ')})`}`;
}

function iterationTimes(view: RunView): IterationTimes[] {
  const byIteration = new Map<number, IterationTimes>();
  const entry = (iteration: number) => {
    let times = byIteration.get(iteration);
    if (!times) {
      times = { iteration, modelMs: 0, tools: [], requested: 0, outcomes: { ran: 0, rejected: 0, blocked: 0 } };
      byIteration.set(iteration, times);
    }
    return times;
  };
  for (const event of view.events) {
    if (event.type === 'THOUGHT') {
      const times = entry(event.iteration);
      times.modelMs += view.invocations.get(event.llm_invocation_ref)?.metadata?.duration_ms ?? 0;
      if (event.usage) times.tokens = (times.tokens ?? 0) + event.usage.total_tokens;
      times.requested += event.tool_calls.length;
    }
    if (event.type === 'ACTION_RESULT') entry(event.iteration).outcomes[callOutcome(event)] += 1;
    if (event.type === 'ACTION_RESULT' && event.execution_ref) {
      const execution = view.executions.get(event.execution_ref);
      entry(event.iteration).tools.push({ name: event.tool_name, ms: execution?.durationMs ?? 0, failed: event.status !== 'SUCCESS' });
    }
  }
  return [...byIteration.values()].sort((a, b) => a.iteration - b.iteration);
}

function renderTimeline(times: IterationTimes[]): string {
  const total = (entry: IterationTimes) => entry.modelMs + entry.tools.reduce((sum, tool) => sum + tool.ms, 0);
  const longest = Math.max(1, ...times.map(total));
  const percent = (ms: number) => ((ms / longest) * 100).toFixed(2);
  const rows = times.map((entry) => {
    const bars = [
      `<div class="bar model" style="width:${percent(entry.modelMs)}%" title="model ${esc(formatDuration(entry.modelMs))}"></div>`,
      ...entry.tools.map(
        (tool) =>
          `<div class="bar tool${tool.failed ? ' failed' : ''}" style="width:${percent(tool.ms)}%" title="${esc(tool.name)} ${esc(formatDuration(tool.ms))}"></div>`,
      ),
    ].join('');
    const tokens = entry.tokens === undefined ? '' : ` · ${formatCount(entry.tokens)} tokens`;
    return `<a href="#iteration-${entry.iteration}"><span>Iteration ${entry.iteration}</span><div class="bars">${bars}</div><span class="muted">${esc(formatDuration(total(entry)))}${tokens}</span></a>`;
  });
  return `<div class="timeline">${rows.join('')}</div><div class="legend muted"><span style="background:var(--model)"></span>model<span style="background:var(--tool)"></span>tool<span style="background:var(--bad)"></span>failed tool</div>`;
}

function renderThought(view: RunView, event: ThoughtEvent): string {
  const invocation = view.invocations.get(event.llm_invocation_ref);
  const text = event.content === null || event.content === '' ? '<span class="muted">(no text)</span>' : esc(event.content);
  const usage = event.usage ? formatTokensInOut(event.usage) : 'no token count';
  const duration = invocation?.metadata ? `, ${formatDuration(invocation.metadata.duration_ms)}` : '';
  const reasoning = event.reasoning
    ? `<details class="reasoning" open><summary>Reasoning</summary><pre>${esc(event.reasoning)}</pre></details>`
    : '';
  return (
    reasoning +
    `<div class="thought">${text}</div>` +
    `<details class="invocation"><summary>Model call <code>${esc(event.llm_invocation_ref)}</code> <span class="muted">(${esc(usage)}${esc(duration)})</span></summary>` +
    (invocation
      ? renderRequestChat(invocation.request) +
        embedded('Raw request (the exact bytes sent)', invocation.request) +
        embedded('Raw response', invocation.response)
      : '<div class="muted">Not recorded.</div>') +
    `</details>`
  );
}

/** Events that are not thoughts or tool calls, as one line each. */
function renderOther(event: JournalEvent): string {
  switch (event.type) {
    case 'ENGINE_START':
      return renderLine(
        event.resumed ? 'Resumed' : 'Started',
        `run ${event.run_id}${event.model ? ` with ${event.model}` : ''} in ${event.work_dir} (${event.timestamp})`,
      );
    case 'USER_MESSAGE':
      return renderLine('User', event.content);
    case 'HUMAN_INPUT_REQUEST':
      return renderLine('Asked a human', event.prompt);
    case 'HUMAN_INPUT_RECEIVED':
      return renderLine('Human answered', event.response);
    case 'SYSTEM_MESSAGE':
    case 'HOOK_EXECUTION_AUDIT':
      return renderDuringCall(event);
    case 'ERROR':
      return renderLine('Error', event.error_message, 'ERROR');
    case 'ENGINE_END':
      return renderLine(
        'Ended',
        `${event.status} after ${countOf(event.final_iteration, 'iteration')}${event.reason ? `: ${event.reason}` : ''} (${event.timestamp})`,
        event.status === 'FAILED' ? 'ERROR' : '',
      );
    default:
      return '';
  }
}

function renderSummary(view: RunView): string {
  const metadata = view.metadata;
  const end = metadata?.end_time ?? metadata?.updated_at;
  const items: Array<[string, string, string?]> = [
    ['Agent', metadata?.agent_name ?? '?'],
    ['Status', metadata?.status ?? '?', `status-${metadata?.status ?? ''}`],
    ['Iterations', metadata ? `${metadata.iterations} of ${metadata.max_iterations}` : '?'],
    ['Tokens', metadata?.usage ? `${formatCount(metadata.usage.total_tokens)} (${formatTokensInOut(metadata.usage, 'in')})` : '-'],
    ['Estimated cost', metadata?.estimated_cost ? formatCost(metadata.estimated_cost) : '-'],
    ['Started', metadata?.created_at ?? '?'],
    ['Duration', metadata && end ? formatDuration(Date.parse(end) - Date.parse(metadata.created_at)) : '?'],
    ['Workspace', view.paths.workDir],
  ];
  if (metadata?.status_reason) items.push(['Reason', metadata.status_reason]);
  return `<dl class="summary">${items.map(([term, value, className]) => `<div><dt>${esc(term)}</dt><dd${className ? ` class="${esc(className)}"` : ''}>${esc(value)}</dd></div>`).join('')}</dl>`;
}

/** One self-contained HTML page for a run: inline style and script, every value escaped. */
export function renderRunHtml(run: RunView): string {
  const view = hideAnswers(run);
  const calls = pairCalls(view.events);
  const paired = new Set(calls.results.values());
  const claimed = new Set([...calls.during.values()].flat());
  const times = new Map(iterationTimes(view).map((entry) => [entry.iteration, entry]));
  const blocks: string[] = [];
  let section: { iteration: number; parts: string[] } | undefined;
  const close = () => {
    if (!section) return;
    const entry = times.get(section.iteration);
    const meta = entry
      ? `model ${formatDuration(entry.modelMs)}${callCount(entry)}${entry.tokens === undefined ? '' : ` · ${formatCount(entry.tokens)} tokens`}`
      : '';
    blocks.push(
      `<section class="iteration" id="iteration-${section.iteration}" data-iteration="${section.iteration}"><h2>Iteration ${section.iteration} <span class="meta">${esc(meta)}</span></h2>${section.parts.join('')}</section>`,
    );
    section = undefined;
  };
  for (const event of view.events) {
    if (event.type === 'THOUGHT' && section?.iteration !== event.iteration) {
      close();
      section = { iteration: event.iteration, parts: [] };
    }
    if (event.type === 'ENGINE_START' || event.type === 'ENGINE_END' || (event.type === 'USER_MESSAGE' && section)) close();
    let html: string;
    if (event.type === 'THOUGHT') html = renderThought(view, event);
    else if (event.type === 'ACTION_REQUEST') html = renderToolCall(view, event, calls.results.get(event), calls.during.get(event));
    else if (event.type === 'ACTION_RESULT') html = paired.has(event) ? '' : renderToolCall(view, undefined, event);
    else html = claimed.has(event) ? '' : renderOther(event);
    if (html === '') continue;
    if (section) section.parts.push(html);
    else blocks.push(`<div class="run-event">${html}</div>`);
  }
  close();

  return htmlPage({
    title: `delta view: ${view.metadata?.agent_name ?? 'run'} ${view.paths.runId}`,
    style: PAGE_STYLE,
    body: `<header>
<h1>Run <code>${esc(view.paths.runId)}</code></h1>
${renderSummary(view)}
${renderTimeline([...times.values()])}
<div class="controls"><button type="button" id="expand-all">Expand all</button><button type="button" id="collapse-all">Collapse all</button><span class="muted" id="shown"></span></div>
</header>
<main>
${blocks.join('\n')}
</main>`,
    script: PAGE_SCRIPT,
  });
}
