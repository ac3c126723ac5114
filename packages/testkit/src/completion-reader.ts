import { continueMessagesSpan, findMessagesSpan } from './messages-span.js';
import { type RequestProblem, problem } from './request-problem.js';
import { type CheckedMessages, noMessagesChecked } from './validate-messages.js';
import { checkRequest } from './validate-request.js';

/** A chat-completions body the real API would accept, as the reply needs it. */
export interface AcceptedCompletion {
  /** The body's top-level fields, except that `messages` may hold only the messages an earlier body did not. */
  fields: Record<string, unknown>;
  /** What the prompt-token estimate counts (see promptLength), for the whole body. */
  promptLength: number;
}

export type CompletionRead = { text: string } & (
  | { problem: RequestProblem; accepted?: undefined }
  | { problem: null; accepted: AcceptedCompletion }
);

/** Reads a chat-completions body: its text, and why the real API would refuse it or what the reply needs. */
export type CompletionReader = (bytes: Buffer) => CompletionRead;

/**
 * The last accepted body: its text up to `end`, just after its last message, is checked. An agent sends
 * its whole conversation every time, so the next body usually starts with exactly these bytes.
 */
interface Conversation {
  bytes: Buffer;
  end: number;
  /** The text up to the `[` of the messages array. */
  head: string;
  /** The text up to `end`; the next body's text shares it. */
  text: string;
  checked: CheckedMessages;
  /** The length of the messages array as JSON. */
  messagesLength: number;
}

type Reading = CompletionRead & { conversation?: Conversation | null };

const notJson = problem('We could not parse the JSON body of your request. The OpenAI API expects a JSON payload.');

/**
 * A reader that remembers the last accepted conversation, so that a body repeating it and adding a few
 * messages costs only what it adds: the bytes before are compared, not parsed, checked or measured again.
 * Anything else is read whole, with the same results.
 */
export function createCompletionReader(): CompletionReader {
  let last: Conversation | null = null;
  return (bytes) => {
    const { conversation, ...read } = (last && continueConversation(last, bytes)) ?? readWhole(bytes);
    if (conversation !== undefined) last = conversation;
    return read;
  };
}

function readWhole(bytes: Buffer): Reading {
  const text = bytes.toString('utf8');
  let body: unknown;
  // Not safeParseJson: a body that is not JSON is the fake server's HTTP 400 answer, not an error.
  try {
    body = JSON.parse(text);
  } catch {
    return { text, problem: notJson };
  }
  const check = checkRequest(body, noMessagesChecked);
  if (check.problem) return { text, problem: check.problem };
  const fields = body as Record<string, unknown>;
  const messagesLength = JSON.stringify(fields.messages).length;
  const accepted = { fields, promptLength: promptLengthOf(fields, messagesLength) };
  const span = findMessagesSpan(bytes);
  if (span === null) return { text, problem: null, accepted, conversation: null };
  // The bytes after `end` are few, and decoding them tells where `end` falls in the text.
  const conversationText = text.slice(0, text.length - bytes.toString('utf8', span.end).length);
  const head = bytes.toString('utf8', 0, span.start);
  const conversation = { bytes, end: span.end, head, text: conversationText, checked: check.checked, messagesLength };
  return { text, problem: null, accepted, conversation };
}

/**
 * Reads a body that starts with the bytes of `last` up to its last message, or null when it does not or
 * what follows is not more messages and the rest of the object. The head of `last` and the rest of the new
 * body (its messages after `last`'s) are parsed as one object: JSON.parse accepts that exactly when it
 * accepts the whole body, and gives the same fields, with `messages` holding only the new ones.
 */
function continueConversation(last: Conversation, bytes: Buffer): Reading | null {
  const { end } = last;
  if (bytes.length < end || bytes.compare(last.bytes, 0, end, 0, end) !== 0) return null;
  const newEnd = continueMessagesSpan(bytes, end);
  if (newEnd === null) return null;
  // Split after whole JSON values, so decoding the parts gives the text decoding the whole would.
  const added = bytes.toString('utf8', end, newEnd);
  const rest = bytes.toString('utf8', newEnd);
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(last.head + added.slice(added.indexOf(',') + 1) + rest);
  } catch {
    return null;
  }
  const conversationText = last.text + added;
  const text = conversationText + rest;
  const check = checkRequest(fields, last.checked);
  if (check.problem) return { text, problem: check.problem };
  const messagesLength = last.messagesLength + addedLength(fields.messages as unknown[]);
  const accepted = { fields, promptLength: promptLengthOf(fields, messagesLength) };
  const conversation = { ...last, bytes, end: newEnd, text: conversationText, checked: check.checked, messagesLength };
  return { text, problem: null, accepted, conversation };
}

/** What appending `values` to a non-empty array adds to its length as JSON: a comma and the value, each. */
function addedLength(values: unknown[]): number {
  let length = 0;
  for (const value of values) length += JSON.stringify(value).length + 1;
  return length;
}

/** promptLength, with the length of the messages array as JSON known. */
function promptLengthOf(fields: Record<string, unknown>, messagesLength: number): number {
  return messagesLength + JSON.stringify(fields.tools ?? []).length;
}
