import type { ActionRequestEvent, ActionResultEvent, JournalEvent } from '@delta/journal';
import { formatCount, formatDuration } from '../inspect/format-numbers.js';
import type { EmbeddedText, ExecutionView, RunView } from './collect-run.js';
import { escapeHtml as esc } from './escape-html.js';

/** What became of a call: it ran, the engine refused it before it started, or the pre_tool_execution gate blocked it. */
export type CallOutcome = 'ran' | 'rejected' | 'blocked';

/** The io/hooks/ directories that stopped a call or replaced its observation (optional ACTION_RESULT fields). */
function hookRefs(result: ActionResultEvent): { blockedBy?: string; overriddenBy?: string } {
  const { blocked_by: blockedBy, observation_overridden_by: overriddenBy } = result as {
    blocked_by?: unknown;
    observation_overridden_by?: unknown;
  };
  return {
    ...(typeof blockedBy === 'string' ? { blockedBy } : {}),
    ...(typeof overriddenBy === 'string' ? { overriddenBy } : {}),
  };
}

/**
 * A call with an execution record, or a result that is not an ERROR (an answered ask_human), ran; one a hook
 * blocked did not; any other ERROR without an execution was refused by the engine before it started
 * (an unknown tool, arguments that do not fit, a run interrupted before the call).
 */
export function callOutcome(result: ActionResultEvent): CallOutcome {
  if (hookRefs(result).blockedBy !== undefined) return 'blocked';
  if (result.execution_ref !== undefined || result.status !== 'ERROR') return 'ran';
  return 'rejected';
}

export function embedded(title: string, content: EmbeddedText | undefined, open = false): string {
  if (!content) return '';
  const cut =
    content.truncatedFrom === undefined
      ? ''
      : `<div class="note">Cut at ${formatCount(Buffer.byteLength(content.text))} of ${formatCount(content.truncatedFrom)} bytes; the whole text is in ${esc(content.file)}.</div>`;
  const bytes = Buffer.byteLength(content.text);
  return `<details${open ? ' open' : ''}><summary>${esc(title)} <span class="muted">(${formatCount(content.truncatedFrom ?? bytes)} bytes, ${esc(content.file)})</span></summary>${cut}<pre>${esc(content.text)}</pre></details>`;
}

export function renderLine(label: string, text: string, className = ''): string {
  return `<div class="event-line ${esc(className)}"><span class="label">${esc(label)}</span>${esc(text)}</div>`;
}

/** A hook run or a system message recorded while a call was under way, as one line. */
export function renderDuringCall(event: JournalEvent): string {
  if (event.type === 'HOOK_EXECUTION_AUDIT') {
    return renderLine('Hook', `${event.hook_name} ${event.status} (${event.io_path_ref})`, event.status);
  }
  if (event.type === 'SYSTEM_MESSAGE') return renderLine(`System ${event.level}`, event.content, event.level);
  return '';
}

/** Whether `event`, recorded between a call's ACTION_REQUEST and its ACTION_RESULT, belongs inside the call. */
export function happensDuringCall(event: JournalEvent): boolean {
  return (event.type === 'HOOK_EXECUTION_AUDIT' && /^(pre|post)_tool_execution$/.test(event.hook_name)) || event.type === 'SYSTEM_MESSAGE';
}

function badge(result: ActionResultEvent | undefined, outcome: CallOutcome | undefined): string {
  if (!result) return '<span class="badge">NO RESULT</span>';
  const label = outcome === 'blocked' ? 'BLOCKED' : outcome === 'rejected' ? 'REJECTED' : result.status;
  return `<span class="badge ${esc(label)}">${esc(label)}</span>`;
}

/** Why the model's observation is not simply what the tool printed, when it is not. */
function note(result: ActionResultEvent | undefined, outcome: CallOutcome | undefined, execution: ExecutionView | undefined): string {
  if (!result) return '';
  const { blockedBy, overriddenBy } = hookRefs(result);
  if (outcome === 'blocked') {
    return `<div class="note blocked">Blocked by the pre_tool_execution hook (${esc(blockedBy ?? '?')}): it did not run. The model was told why, below.</div>`;
  }
  if (outcome === 'rejected') {
    return '<div class="note rejected">Rejected by the engine before it started: it did not run. The model was told why, below.</div>';
  }
  if (overriddenBy === undefined) return '';
  const original = execution ? ` The tool's own output is in io/tool_executions/${esc(execution.ref)}/ (stdout and stderr below).` : '';
  return `<div class="note replaced">Observation replaced by the post_tool_execution hook (${esc(overriddenBy)}): the model saw the hook's text, not the tool's.${original}</div>`;
}

/**
 * One tool call as a card, in the order things happened: the arguments, the pre_tool_execution gate, the
 * command and what it printed, post_tool_execution, and the observation the model saw.
 */
export function renderToolCall(
  view: RunView,
  request: ActionRequestEvent | undefined,
  result: ActionResultEvent | undefined,
  during: JournalEvent[] = [],
): string {
  const name = request?.tool_name ?? result?.tool_name ?? '?';
  const execution = result?.execution_ref ? view.executions.get(result.execution_ref) : undefined;
  const outcome = result ? callOutcome(result) : undefined;
  const overridden = result !== undefined && hookRefs(result).overriddenBy !== undefined;
  const facts = [
    result && result.exit_code !== null ? `exit ${result.exit_code}` : undefined,
    execution?.durationMs !== undefined ? formatDuration(execution.durationMs) : undefined,
    request ? request.action_id : result?.action_id,
  ].filter(Boolean);
  const args = request
    ? `<pre class="args">${esc(
        request.tool_args === undefined
          ? '(large arguments, kept once in the THOUGHT of this iteration in journal.jsonl)'
          : request.tool_args === null
            ? '(arguments could not be parsed)'
            : JSON.stringify(request.tool_args, null, 2),
      )}</pre>`
    : '';
  const command = execution?.command ?? request?.resolved_command;
  // Hooks before the tool ran, and after: the first post_tool_execution hook splits them.
  const split = during.findIndex((event) => event.type === 'HOOK_EXECUTION_AUDIT' && event.hook_name === 'post_tool_execution');
  const before = split === -1 ? during : during.slice(0, split);
  const after = split === -1 ? [] : during.slice(split);
  const className =
    outcome === 'blocked' ? ' blocked' : outcome === 'rejected' ? ' rejected' : result && result.status !== 'SUCCESS' ? ' failed' : '';
  return (
    `<div class="tool-call${className}${overridden ? ' replaced' : ''}" data-action="${esc(request?.action_id ?? result?.action_id ?? '')}">` +
    `<div class="tool-head"><span class="tool-name">${esc(name)}</span>${badge(result, outcome)}${overridden ? '<span class="badge REPLACED">OBSERVATION REPLACED</span>' : ''}<span class="muted">${esc(facts.join(' · '))}</span></div>` +
    args +
    note(result, outcome, execution) +
    before.map(renderDuringCall).join('') +
    (command
      ? `<details><summary>Command line${outcome === 'blocked' || outcome === 'rejected' ? ' (not run)' : ''}</summary><pre>${esc(command)}</pre></details>`
      : '') +
    (execution ? embedded('stdout', execution.stdout, overridden) + embedded('stderr', execution.stderr) : '') +
    after.map(renderDuringCall).join('') +
    (result
      ? embedded(
          'Observation (what the model saw)',
          { text: result.observation_content, file: 'journal.jsonl' },
          outcome !== 'ran' || overridden,
        )
      : '') +
    `</div>`
  );
}
