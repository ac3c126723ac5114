import type { JournalEvent } from '@delta/journal';
import { visibleControls } from './visible-controls.js';

/** What `delta log` and `delta view` show instead of a password or sensitive answer. */
export const HIDDEN_ANSWER = '•••••• (hidden: an answer to a password or sensitive question; the journal keeps it)';

// A very short answer is hidden where it stands alone; hiding it inside other text would blank out common letters.
const SHORTEST_HIDDEN_INSIDE_TEXT = 4;

/**
 * Answers to ask_human questions with `input_type: password` or `sensitive: true`, learnt from the
 * events as they are read (so that `delta log -f` can use it too), and hidden wherever they appear in
 * what `delta log` and `delta view` show: the answer itself, the ask_human result, later requests.
 * The journal and the io/ records keep them, as docs/runs.md says.
 */
export class HiddenAnswers {
  private readonly sensitiveCalls = new Set<string>();
  private readonly answers = new Set<string>();

  /** Takes note of a question or an answer; call it for every event, in order. */
  observe(event: JournalEvent): void {
    if (event.type === 'HUMAN_INPUT_REQUEST' && (event.sensitive === true || event.input_type === 'password')) {
      this.sensitiveCalls.add(event.action_id);
    } else if (event.type === 'HUMAN_INPUT_RECEIVED' && this.sensitiveCalls.has(event.action_id) && event.response !== '') {
      this.answers.add(event.response);
      // As a transcript shows it, its control characters written out (visibleControls).
      this.answers.add(visibleControls(event.response));
    }
  }

  /** Whether this call's answer is to be hidden (an ask_human call with a sensitive question). */
  hides(actionId: string): boolean {
    return this.sensitiveCalls.has(actionId);
  }

  /** The text with every known answer replaced by {@link HIDDEN_ANSWER}. */
  mask(text: string): string {
    let masked = text;
    for (const answer of this.answers) {
      if (masked === answer) return HIDDEN_ANSWER;
      if (answer.length >= SHORTEST_HIDDEN_INSIDE_TEXT) masked = masked.split(answer).join(HIDDEN_ANSWER);
    }
    return masked;
  }
}
