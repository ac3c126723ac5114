import type { JournalEvent } from '@delta/journal';
import { HIDDEN_ANSWER, HiddenAnswers } from '../inspect/hidden-answers.js';
import type { EmbeddedText, RunView } from './collect-run.js';

/**
 * The run as `delta view` shows it: answers to password or sensitive questions hidden everywhere on the
 * page (the answer, the ask_human result, later requests and tool output). The files keep them.
 */
export function hideAnswers(view: RunView): RunView {
  const hidden = new HiddenAnswers();
  for (const event of view.events) hidden.observe(event);
  const text = (content: EmbeddedText | undefined) => (content === undefined ? undefined : { ...content, text: hidden.mask(content.text) });
  const events = view.events.map((event): JournalEvent => {
    if (event.type === 'HUMAN_INPUT_RECEIVED' && hidden.hides(event.action_id)) return { ...event, response: HIDDEN_ANSWER };
    if (event.type === 'ACTION_RESULT' && hidden.hides(event.action_id)) return { ...event, observation_content: HIDDEN_ANSWER };
    return maskStrings(event, (value) => hidden.mask(value)) as JournalEvent;
  });
  const invocations = new Map(
    [...view.invocations].map(([id, invocation]) => {
      const request = text(invocation.request);
      const response = text(invocation.response);
      return [id, { ...invocation, ...(request ? { request } : {}), ...(response ? { response } : {}) }];
    }),
  );
  const executions = new Map(
    [...view.executions].map(([ref, execution]) => [
      ref,
      { ...execution, stdout: text(execution.stdout)!, stderr: text(execution.stderr)! },
    ]),
  );
  return { ...view, events, invocations, executions };
}

/** A copy of a JSON value with every string (never a key) passed through `mask`. */
function maskStrings(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, mask));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskStrings(item, mask)]));
  }
  return value;
}
