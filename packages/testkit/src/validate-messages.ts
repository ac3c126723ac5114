import { type RequestProblem, describeType, isObject, problem } from './request-problem.js';

const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];
const knownRoles = new Set(roles);

/** The assistant message whose tool calls the tool messages after it answer. */
export interface PendingToolCalls {
  index: number;
  ids: string[];
  answered: Set<string>;
}

/**
 * How far a conversation has been checked: its first `count` messages are well formed and every tool
 * message among them answers a call; `pending` is the call-making message the next tool messages answer.
 */
export interface CheckedMessages {
  count: number;
  pending: PendingToolCalls | null;
}

export const noMessagesChecked: CheckedMessages = { count: 0, pending: null };

export type MessagesCheck = { problem: RequestProblem } | { problem: null; checked: CheckedMessages };

/** The rules for the `messages` parameter itself, before its messages. */
export function messagesTypeProblem(messages: unknown): RequestProblem | null {
  if (messages === undefined) return problem("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(messages)) {
    return problem(
      `Invalid type for 'messages': expected an array of objects, but got ${describeType(messages)} instead.`,
      'messages',
      'invalid_type',
    );
  }
  if (messages.length === 0) {
    return problem(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  return null;
}

/**
 * The messages of a `messages` array: shapes first, then the pairing of tool calls and tool results.
 * `messages` follow the `earlier` ones of the conversation (`noMessagesChecked` for a whole one); the
 * result is the same as checking the whole conversation.
 */
export function continueMessages(messages: unknown[], earlier: CheckedMessages): MessagesCheck {
  for (let offset = 0; offset < messages.length; offset++) {
    const found = validateMessageShape(messages[offset], `messages[${earlier.count + offset}]`);
    if (found) return { problem: found };
  }
  return continueToolPairing(messages as Array<Record<string, unknown>>, earlier);
}

function isContent(value: unknown): boolean {
  return typeof value === 'string' || (Array.isArray(value) && value.length > 0);
}

function validateMessageShape(message: unknown, at: string): RequestProblem | null {
  if (!isObject(message))
    return problem(`Invalid type for '${at}': expected an object, but got ${describeType(message)} instead.`, at, 'invalid_type');
  const { role } = message;
  if (role === undefined) return problem(`Missing required parameter: '${at}.role'.`, `${at}.role`, 'missing_required_parameter');
  if (typeof role !== 'string' || !knownRoles.has(role)) {
    return problem(
      `Invalid value: ${JSON.stringify(role)}. Supported values are: ${roles.map((name) => `'${name}'`).join(', ')}.`,
      `${at}.role`,
      'invalid_value',
    );
  }
  if (role === 'assistant') return validateAssistant(message, at);
  if (message.content === undefined) {
    return problem(`Missing required parameter: '${at}.content'.`, `${at}.content`, 'missing_required_parameter');
  }
  if (!isContent(message.content)) {
    return problem(
      `Invalid type for '${at}.content': expected a string or a non-empty array of content parts, but got ${describeType(message.content)} instead.`,
      `${at}.content`,
      'invalid_type',
    );
  }
  if (role === 'tool' && (typeof message.tool_call_id !== 'string' || message.tool_call_id === '')) {
    return problem(`Missing required parameter: '${at}.tool_call_id'.`, `${at}.tool_call_id`, 'missing_required_parameter');
  }
  return null;
}

function validateAssistant(message: Record<string, unknown>, at: string): RequestProblem | null {
  const { content, tool_calls: toolCalls } = message;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (!Array.isArray(toolCalls) || toolCalls.length === 0) {
      return problem(
        `Invalid '${at}.tool_calls': expected a non-empty array, but got ${describeType(toolCalls)}.`,
        `${at}.tool_calls`,
        'invalid_value',
      );
    }
    for (const [index, call] of toolCalls.entries()) {
      const where = `${at}.tool_calls[${index}]`;
      const fn = isObject(call) ? call.function : undefined;
      if (!isObject(call) || typeof call.id !== 'string' || call.id === '') {
        return problem(`Missing required parameter: '${where}.id'.`, `${where}.id`, 'missing_required_parameter');
      }
      if (call.type !== 'function') {
        return problem(`Invalid value for '${where}.type': expected 'function'.`, `${where}.type`, 'invalid_value');
      }
      if (!isObject(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
        return problem(
          `Invalid '${where}.function': expected an object with string 'name' and string 'arguments'.`,
          `${where}.function`,
          'invalid_value',
        );
      }
    }
    if (content === undefined || content === null || isContent(content)) return null;
  } else if (isContent(content)) {
    return null;
  }
  return problem(
    `Invalid value for '${at}.content': expected a string, got ${describeType(content === undefined ? null : content)} (an assistant message without tool_calls needs content).`,
    `${at}.content`,
    'invalid_value',
  );
}

/** Every assistant tool call is answered by one tool message, right after it; no tool message answers nothing. */
function continueToolPairing(messages: Array<Record<string, unknown>>, earlier: CheckedMessages): MessagesCheck {
  // A copy: `earlier` may be remembered for the next request.
  let pending = earlier.pending && { ...earlier.pending, answered: new Set(earlier.pending.answered) };
  for (let offset = 0; offset < messages.length; offset++) {
    const message = messages[offset]!;
    const index = earlier.count + offset;
    if (message.role === 'tool') {
      const id = message.tool_call_id as string;
      if (pending === null || !pending.ids.includes(id)) {
        return {
          problem: problem(
            `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'. messages[${index}] answers tool_call_id '${id}', which the assistant message right before it did not make.`,
            `messages[${index}].role`,
          ),
        };
      }
      if (pending.answered.has(id)) {
        return {
          problem: problem(
            `Invalid parameter: messages[${index}] answers tool_call_id '${id}' a second time.`,
            `messages[${index}].tool_call_id`,
          ),
        };
      }
      pending.answered.add(id);
      continue;
    }
    const found = unansweredProblem(pending);
    if (found) return { problem: found };
    pending = null;
    const toolCalls = message.tool_calls;
    if (message.role === 'assistant' && Array.isArray(toolCalls)) {
      pending = { index, ids: toolCalls.map((call: { id: string }) => call.id), answered: new Set() };
    }
  }
  const found = unansweredProblem(pending);
  return found ? { problem: found } : { problem: null, checked: { count: earlier.count + messages.length, pending } };
}

function unansweredProblem(pending: PendingToolCalls | null): RequestProblem | null {
  if (pending === null) return null;
  const { index, ids, answered } = pending;
  const missing = ids.filter((id) => !answered.has(id));
  if (missing.length === 0) return null;
  return problem(
    `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')} (assistant message messages[${index}]).`,
    `messages[${index}]`,
  );
}
