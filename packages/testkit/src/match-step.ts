import type { ScriptStep } from './script-step.js';

/** The text of a message's content: a string, or the text parts of a list. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'object' && part !== null && typeof part.text === 'string' ? part.text : '')).join('');
}

/** The request's model and its last user or tool message (what a step's `when` looks at). */
export function requestFacts(body: unknown): { model: string; last?: { role: string; text: string } } {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as { model?: unknown; messages?: unknown };
  const model = typeof fields.model === 'string' ? fields.model : '';
  const messages = Array.isArray(fields.messages) ? fields.messages : [];
  const last = messages.findLast(
    (message): message is { role: string; content: unknown } =>
      typeof message === 'object' && message !== null && (message.role === 'user' || message.role === 'tool'),
  );
  return last === undefined ? { model } : { model, last: { role: last.role, text: textOf(last.content) } };
}

function matches(step: ScriptStep, facts: ReturnType<typeof requestFacts>): boolean {
  const { when } = step;
  if (when === undefined) return true;
  if (when.model !== undefined && when.model !== facts.model) return false;
  return when.last_message === undefined || (facts.last?.text.includes(when.last_message) ?? false);
}

function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= 200 ? line : `${line.slice(0, 199)}…`;
}

/**
 * Picks the step that answers each request. A script without `when` answers in order, one step per
 * request; with `when`, each request gets the first unused step (in script order) that matches it, so
 * concurrent conversations and several models share one server. Returns the problem when none does.
 */
export function createStepPicker(steps: readonly ScriptStep[]): (body: () => unknown, index: number) => ScriptStep | string {
  const ordered = steps.every((step) => step.when === undefined);
  const used = new Array<boolean>(steps.length).fill(false);
  return (body, index) => {
    if (ordered) {
      return steps[index] ?? `delta-fake-llm: the script has no step for request ${index + 1} (it has ${steps.length} steps)`;
    }
    const facts = requestFacts(body());
    const found = steps.findIndex((step, position) => !used[position] && matches(step, facts));
    if (found >= 0) {
      used[found] = true;
      return steps[found]!;
    }
    const left = used.filter((taken) => !taken).length;
    const last = facts.last ? `its last ${facts.last.role} message: "${shorten(facts.last.text)}"` : 'no user or tool message';
    return `delta-fake-llm: no step of the script matches request ${index + 1} (model "${facts.model}", ${last}); ${left} of ${steps.length} steps are unused`;
  };
}
