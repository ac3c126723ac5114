import { type RequestProblem, describeType, isObject, problem } from './request-problem.js';
import { type CheckedMessages, type MessagesCheck, continueMessages, messagesTypeProblem, noMessagesChecked } from './validate-messages.js';
import { validateTools } from './validate-tools.js';

/** Checks a chat-completions request body the way a strict OpenAI-compatible API does; null when it is fine. */
export function validateRequest(body: unknown): RequestProblem | null {
  return checkRequest(body, noMessagesChecked).problem;
}

/**
 * validateRequest for a body whose `messages` are only those after the `earlier` ones of its conversation
 * (`noMessagesChecked` for all of them); when the body is fine, how far its conversation is now checked.
 */
export function checkRequest(body: unknown, earlier: CheckedMessages): MessagesCheck {
  const found = fieldsProblem(body);
  if (found) return { problem: found };
  const { messages, tools } = body as Record<string, unknown>;
  const typeProblem = earlier.count === 0 ? messagesTypeProblem(messages) : null;
  if (typeProblem) return { problem: typeProblem };
  const check = continueMessages(messages as unknown[], earlier);
  if (check.problem) return check;
  const toolsProblem = tools === undefined ? null : validateTools(tools);
  return toolsProblem ? { problem: toolsProblem } : check;
}

function fieldsProblem(body: unknown): RequestProblem | null {
  if (!isObject(body)) return problem(`The request body must be a JSON object, but got ${describeType(body)}.`);
  if (typeof body.model !== 'string' || body.model === '') return problem('you must provide a model parameter');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    return problem(
      `Invalid type for 'stream': expected a boolean, but got ${describeType(body.stream)} instead.`,
      'stream',
      'invalid_type',
    );
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return problem("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  return null;
}

/** The 400 rules as a message (null when the request is fine); see validateRequest for the param too. */
export function validateConversation(body: unknown): string | null {
  return validateRequest(body)?.message ?? null;
}
