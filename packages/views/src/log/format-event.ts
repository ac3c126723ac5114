import type { JournalEvent } from '@delta/journal';
import { NO_COLORS, type Palette, statusColor } from '../inspect/color.js';
import { countOf, formatTokensInOut } from '../inspect/format-numbers.js';
import { HIDDEN_ANSWER, HiddenAnswers } from '../inspect/hidden-answers.js';
import { visibleControls } from '../inspect/visible-controls.js';

const LABEL_WIDTH = 9;
const INDENT = ' '.repeat(8 + 2 + LABEL_WIDTH + 1);

/** "2025-01-02T03:04:05.678Z" -> "03:04:05". */
function clock(timestamp: string): string {
  const match = /T(\d{2}:\d{2}:\d{2})/.exec(timestamp);
  return match ? match[1]! : timestamp.slice(0, 8).padEnd(8);
}

/** Continuation lines of a multi-line text, indented under the first. */
function block(text: string): string {
  return text
    .replace(/\n+$/, '')
    .split('\n')
    .map((line, index) => (index === 0 ? line : `${INDENT}${line}`))
    .join('\n');
}

function argumentsText(args: Record<string, unknown> | null | undefined, raw: string | undefined): string {
  // Large arguments are stored once, in the THOUGHT: their start is enough for a transcript.
  if (args === undefined)
    return raw === undefined
      ? '(arguments not recorded)'
      : `${visibleControls(raw.slice(0, 200))}… (${Buffer.byteLength(raw, 'utf8')} bytes)`;
  if (args !== null) return JSON.stringify(args);
  return raw === undefined ? '(arguments not recorded)' : `${visibleControls(raw)} (not valid arguments)`;
}

/**
 * Turns journal events into a readable transcript, one entry per event. Stateful only to remember
 * the raw arguments of each tool call (for calls whose arguments could not be parsed), the current
 * iteration (for the iteration rule) and the answers to password or sensitive questions, which it hides.
 */
export function createTranscriptFormatter(palette: Palette = NO_COLORS): (event: JournalEvent) => string {
  const rawArguments = new Map<string, string>();
  const hidden = new HiddenAnswers();
  let iteration = 0;
  const line = (event: JournalEvent, label: string, color: (text: string) => string, text: string) =>
    `${palette.dim(clock(event.timestamp))}  ${color(label.padEnd(LABEL_WIDTH))} ${block(text)}\n`;

  const render = (event: JournalEvent): string => {
    let prefix = '';
    if (event.type === 'THOUGHT' && event.iteration !== iteration) {
      iteration = event.iteration;
      prefix = `${palette.bold(`── iteration ${iteration} ${'─'.repeat(40)}`)}\n`;
    }
    switch (event.type) {
      case 'ENGINE_START': {
        const details = [
          event.agent_name ? `agent ${event.agent_name}` : undefined,
          event.model ? `model ${event.model}` : undefined,
          event.max_iterations ? `up to ${event.max_iterations} iterations` : undefined,
        ].filter(Boolean);
        const verb = event.resumed ? 'resumed' : 'started';
        return line(event, 'START', palette.bold, `run ${event.run_id} ${verb} (${details.join(', ')})\nin ${event.work_dir}`);
      }
      case 'USER_MESSAGE':
        return line(event, 'USER', palette.cyan, visibleControls(event.content));
      case 'THOUGHT': {
        for (const call of event.tool_calls) rawArguments.set(call.id, call.arguments);
        const usage = event.usage ? palette.dim(`(${formatTokensInOut(event.usage)})`) : '';
        const calls =
          event.tool_calls.length === 0
            ? 'no tool calls: the final answer'
            : `calls ${event.tool_calls.map((call) => visibleControls(call.name)).join(', ')}`;
        const content = event.content === null || event.content === '' ? palette.dim('(no text)') : visibleControls(event.content);
        // The model's reasoning, when the server sent it, before what it said.
        const reasoning = event.reasoning ? `${line(event, 'REASONING', palette.dim, palette.dim(visibleControls(event.reasoning)))}` : '';
        return prefix + reasoning + line(event, 'THOUGHT', palette.magenta, `${content}\n${palette.dim(calls)} ${usage}`.trimEnd());
      }
      case 'ACTION_REQUEST': {
        const command = event.resolved_command ? `\n${palette.dim('$')} ${visibleControls(event.resolved_command)}` : '';
        return line(
          event,
          'CALL',
          palette.blue,
          `${palette.bold(visibleControls(event.tool_name))} ${argumentsText(event.tool_args, rawArguments.get(event.action_id))} ${palette.dim(`[${event.action_id}]`)}${command}`,
        );
      }
      case 'ACTION_RESULT': {
        const color = event.status === 'SUCCESS' ? palette.green : palette.red;
        const exit = event.exit_code === null ? '' : `, exit ${event.exit_code}`;
        const observation = hidden.hides(event.action_id)
          ? palette.dim(HIDDEN_ANSWER)
          : event.observation_content === ''
            ? palette.dim('(no output)')
            : visibleControls(event.observation_content);
        return line(
          event,
          'RESULT',
          color,
          `${palette.bold(visibleControls(event.tool_name))} ${color(event.status)}${exit}${hookNote(event, palette)} ${palette.dim(`[${event.execution_ref ?? event.action_id}]`)}\n${observation}`,
        );
      }
      case 'HUMAN_INPUT_REQUEST':
        return line(
          event,
          'ASK',
          palette.yellow,
          `${visibleControls(event.prompt)}${event.sensitive || event.input_type === 'password' ? palette.dim(` (${event.input_type === 'password' ? 'password' : 'sensitive'})`) : ''}`,
        );
      case 'HUMAN_INPUT_RECEIVED':
        return line(
          event,
          'HUMAN',
          palette.yellow,
          hidden.hides(event.action_id) ? palette.dim(HIDDEN_ANSWER) : visibleControls(event.response),
        );
      case 'SYSTEM_MESSAGE':
        return line(
          event,
          'SYSTEM',
          event.level === 'INFO' ? palette.dim : palette.yellow,
          `${event.level}: ${visibleControls(event.content)}`,
        );
      case 'HOOK_EXECUTION_AUDIT':
        return line(
          event,
          'HOOK',
          event.status === 'FAILED' ? palette.red : palette.dim,
          `${event.hook_name} ${event.status} ${palette.dim(event.io_path_ref)}`,
        );
      case 'ERROR':
        return line(
          event,
          'ERROR',
          palette.red,
          `${visibleControls(event.error_message)}${event.error_code ? palette.dim(` (${event.error_code})`) : ''}`,
        );
      case 'ENGINE_END': {
        const color = statusColor(palette, event.status);
        return line(
          event,
          'END',
          color,
          `${color(event.status)} after ${countOf(event.final_iteration, 'iteration')}${event.reason ? `: ${visibleControls(event.reason)}` : ''}`,
        );
      }
    }
  };
  return (event) => {
    hidden.observe(event);
    return hidden.mask(render(event));
  };
}

/** A call a hook blocked did not run (its CALL line shows what would have); an observation a hook replaced says so. */
function hookNote(event: JournalEvent & { type: 'ACTION_RESULT' }, palette: Palette): string {
  const { blocked_by: blockedBy, observation_overridden_by: overriddenBy } = event as {
    blocked_by?: string;
    observation_overridden_by?: string;
  };
  if (blockedBy !== undefined) return ` ${palette.yellow('BLOCKED by a hook: it did not run')} ${palette.dim(`(${blockedBy})`)}`;
  if (overriddenBy !== undefined) return ` ${palette.yellow('observation replaced by a hook')} ${palette.dim(`(${overriddenBy})`)}`;
  return '';
}
