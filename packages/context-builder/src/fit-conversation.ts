import type { Conversation, ConversationTurn } from '@delta/journal';
import { cutText } from './cut-text.js';
import { conversationMessages } from './journal-messages.js';
import type { ChatMessage } from './messages.js';
import { messageTokens, type CountTokens } from './token-count.js';

export interface FitConversationOptions {
  limit: number;
  countTokens: CountTokens;
  /** Named in the markers, as where the full history is. */
  journalPath: string;
}

export type FitConversationResult =
  | { fits: true; messages: ChatMessage[]; json: Array<string | undefined>; droppedIterations: number }
  | { fits: false; minimumTokens: number };

function droppedNote(dropped: readonly ConversationTurn[], options: FitConversationOptions): string {
  const iterations = dropped.flatMap((turn) => (turn.iteration === undefined ? [] : [turn.iteration]));
  const range = iterations.length === 1 ? `iteration ${iterations[0]}` : `iterations ${iterations[0]}-${iterations.at(-1)}`;
  return (
    `[Delta Engine: ${iterations.length} earlier ${iterations.length === 1 ? 'iteration' : 'iterations'} (${range}) ` +
    `are left out of this context to fit its token budget of ${options.limit}; the full history is in ${options.journalPath}]`
  );
}

/** A message of the kept conversation, with the text that may be cut and what must follow it. */
interface Piece {
  message: ChatMessage;
  /**
   * The conversation's JSON text of the message while it is the conversation's own (undefined for a large
   * one, whose text the run's state does not keep); null once it is a new one (cut, or the task with a note).
   */
  json: string | undefined | null;
  text: string;
  suffix: string;
  isTask: boolean;
  cut: boolean;
}

function withText(piece: Piece, text: string): ChatMessage {
  return { ...piece.message, content: text + piece.suffix } as ChatMessage;
}

/**
 * Fits a conversation into `limit` tokens: the oldest turns go first (whole turns, so no tool result is
 * ever separated from its call), the initial task always stays and says what was left out, and the
 * latest turn always stays. If the task and the latest turn alone are too big, the longest message texts
 * are cut with a marker, the task's last.
 */
export function fitConversation(conversation: Conversation, options: FitConversationOptions): FitConversationResult {
  const cost = (message: ChatMessage) => messageTokens(message, options.countTokens);
  const { turns } = conversation;
  const turnCosts = turns.map((turn) => {
    let sum = 0;
    for (let index = turn.start; index < turn.end; index += 1) sum += cost(conversation.messages[index]!);
    return sum;
  });
  let rest = turnCosts.reduce((sum, value) => sum + value, 0);
  const task: ChatMessage | undefined = conversation.hasTask ? conversation.messages[0] : undefined;
  if ((task ? cost(task) : 0) + rest <= options.limit) {
    return { fits: true, ...conversationMessages(conversation), droppedIterations: 0 };
  }

  const noteFor = (dropped: readonly ConversationTurn[]): ChatMessage | undefined => {
    if (dropped.length === 0) return task;
    const note = droppedNote(dropped, options);
    return task ? { role: 'user', content: `${task.content}\n\n${note}` } : { role: 'user', content: note };
  };
  let dropCount = 0;
  for (;;) {
    if (dropCount >= turns.length - 1) break;
    const head = noteFor(turns.slice(0, dropCount));
    if ((head ? cost(head) : 0) + rest <= options.limit) break;
    rest -= turnCosts[dropCount]!;
    dropCount += 1;
  }
  const dropped = turns.slice(0, dropCount);
  const kept = turns.slice(dropCount);
  const droppedIterations = dropped.filter((turn) => turn.iteration !== undefined).length;

  const pieces: Piece[] = [];
  const head = noteFor(dropped);
  if (head) {
    const suffix = dropped.length > 0 ? `\n\n${droppedNote(dropped, options)}` : '';
    const text = task ? String(task.content) : '';
    const json = head === task ? conversation.json[0] : null;
    pieces.push({ message: head, json, text, suffix: task ? suffix : droppedNote(dropped, options), isTask: true, cut: !task });
  }
  for (const turn of kept) {
    for (let index = turn.start; index < turn.end; index += 1) {
      const message = conversation.messages[index]!;
      pieces.push({
        message,
        json: conversation.json[index],
        text: message.content ?? '',
        suffix: '',
        isTask: false,
        cut: message.content === null,
      });
    }
  }

  const total = () => pieces.reduce((sum, piece) => sum + cost(piece.message), 0);
  let over = total() - options.limit;
  const marker = `\n\n[... cut to fit the token budget: the full text is in ${options.journalPath}]`;
  while (over > 0) {
    const candidates = pieces.filter((piece) => !piece.cut);
    if (candidates.length === 0) return { fits: false, minimumTokens: total() };
    // The longest text goes first; the task only when nothing else is left to cut.
    const piece = candidates.reduce((best, candidate) =>
      best.isTask !== candidate.isTask ? (best.isTask ? candidate : best) : cost(candidate.message) > cost(best.message) ? candidate : best,
    );
    piece.cut = true;
    const target = cost(piece.message) - over;
    const text = cutText(piece.text, marker, (candidate) => cost(withText(piece, candidate)) <= target);
    // Too little room even for the marker: cut to the marker alone and let the next piece give the rest.
    const shortest = text ?? marker.trimStart();
    if (cost(withText(piece, shortest)) < cost(piece.message)) {
      piece.message = withText(piece, shortest);
      piece.json = null;
    }
    over = total() - options.limit;
  }
  return {
    fits: true,
    messages: pieces.map((piece) => piece.message),
    json: pieces.map((piece) => (piece.json === null ? JSON.stringify(piece.message) : piece.json)),
    droppedIterations,
  };
}
