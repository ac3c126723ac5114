import { type RequestProblem, describeType, isObject, problem } from './request-problem.js';
import { validateMessages } from './validate-messages.js';
import { validateTools } from './validate-tools.js';

/** Checks a chat-completions request body the way a strict OpenAI-compatible API does; null when it is fine. */
export function validateRequest(body: unknown): RequestProblem | null {
  if (!isObject(body)) return problem(`The request body must be a JSON object, but got ${describeType(body)}.`);
  if (typeof body.model !== 'string' || body.model === '') return problem('you must provide a model parameter');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    return problem(`Invalid type for 'stream': expected a boolean, but got ${describeType(body.stream)} instead.`, 'stream', 'invalid_type');
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return problem("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  return validateMessages(body.messages) ?? (body.tools === undefined ? null : validateTools(body.tools));
}

/** The 400 rules as a message (null when the request is fine); see validateRequest for the param too. */
export function validateConversation(body: unknown): string | null {
  return validateRequest(body)?.message ?? null;
}
