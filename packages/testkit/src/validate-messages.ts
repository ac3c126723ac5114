import { type RequestProblem, describeType, isObject, problem } from './request-problem.js';

const roles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];

/** The `messages` array: shapes first, then the pairing of tool calls and tool results. */
export function validateMessages(messages: unknown): RequestProblem | null {
  if (messages === undefined) return problem("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (!Array.isArray(messages)) {
    return problem(`Invalid type for 'messages': expected an array of objects, but got ${describeType(messages)} instead.`, 'messages', 'invalid_type');
  }
  if (messages.length === 0) {
    return problem("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  }
  for (const [index, message] of messages.entries()) {
    const found = validateMessageShape(message, `messages[${index}]`);
    if (found) return found;
  }
  return validateToolPairing(messages as Array<Record<string, unknown>>);
}

function isContent(value: unknown): boolean {
  return typeof value === 'string' || (Array.isArray(value) && value.length > 0);
}

function validateMessageShape(message: unknown, at: string): RequestProblem | null {
  if (!isObject(message)) return problem(`Invalid type for '${at}': expected an object, but got ${describeType(message)} instead.`, at, 'invalid_type');
  const { role } = message;
  if (role === undefined) return problem(`Missing required parameter: '${at}.role'.`, `${at}.role`, 'missing_required_parameter');
  if (typeof role !== 'string' || !roles.includes(role)) {
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
      return problem(`Invalid '${at}.tool_calls': expected a non-empty array, but got ${describeType(toolCalls)}.`, `${at}.tool_calls`, 'invalid_value');
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
function validateToolPairing(messages: Array<Record<string, unknown>>): RequestProblem | null {
  let pending: { index: number; ids: string[]; answered: Set<string> } | null = null;
  const unanswered = (): RequestProblem | null => {
    if (pending === null) return null;
    const { index, ids, answered } = pending;
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) return null;
    return problem(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')} (assistant message messages[${index}]).`,
      `messages[${index}]`,
    );
  };
  for (const [index, message] of messages.entries()) {
    if (message.role === 'tool') {
      const id = message.tool_call_id as string;
      if (pending === null || !pending.ids.includes(id)) {
        return problem(
          `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'. messages[${index}] answers tool_call_id '${id}', which the assistant message right before it did not make.`,
          `messages[${index}].role`,
        );
      }
      if (pending.answered.has(id)) {
        return problem(`Invalid parameter: messages[${index}] answers tool_call_id '${id}' a second time.`, `messages[${index}].tool_call_id`);
      }
      pending.answered.add(id);
      continue;
    }
    const found = unanswered();
    if (found) return found;
    pending = null;
    const toolCalls = message.tool_calls;
    if (message.role === 'assistant' && Array.isArray(toolCalls)) {
      pending = { index, ids: toolCalls.map((call: { id: string }) => call.id), answered: new Set() };
    }
  }
  return unanswered();
}
