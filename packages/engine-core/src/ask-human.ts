import { rmSync, writeFileSync } from 'node:fs';
import { diskWrite, makeDirectory } from '@delta/errors';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { readRunRecord, SMALL_RECORD_MAX_BYTES, type RunPaths } from '@delta/journal';

export const ASK_HUMAN = 'ask_human';

/** ask_human as the model sees it (spec 000 section 2.5.1). It is always available. */
export const ASK_HUMAN_TOOL = {
  type: 'function' as const,
  function: {
    name: ASK_HUMAN,
    description: 'Request input from the human user. Execution pauses until the response is received.',
    parameters: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'Question or instruction to display to the user' },
        input_type: {
          type: 'string',
          enum: ['text', 'password', 'confirmation'],
          description: 'Input type: text | password | confirmation',
        },
        sensitive: { type: 'boolean', description: 'Whether the input is sensitive (typed characters are hidden)' },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
  },
};

export interface HumanInputRequest {
  request_id: string;
  action_id: string;
  timestamp: string;
  prompt: string;
  input_type: string;
  sensitive: boolean;
}

/** Asks a person at a terminal (`-i`); resolves with their answer. */
export type AskHumanInteractively = (request: HumanInputRequest, signal: AbortSignal) => Promise<string>;

/** Validates ask_human arguments; an error string is shown to the model. */
export function parseAskHumanArguments(args: Record<string, unknown>): { prompt: string; input_type: string; sensitive: boolean } | string {
  const { prompt, input_type: inputType = 'text', sensitive = false, ...rest } = args;
  const unknown = Object.keys(rest);
  if (typeof prompt !== 'string' || prompt.trim() === '') return 'ask_human needs a non-empty "prompt" string.';
  if (!['text', 'password', 'confirmation'].includes(String(inputType))) {
    return `ask_human "input_type" must be text, password or confirmation, got ${JSON.stringify(inputType)}.`;
  }
  if (typeof sensitive !== 'boolean') return `ask_human "sensitive" must be true or false, got ${JSON.stringify(sensitive)}.`;
  if (unknown.length > 0)
    return `ask_human has no parameter ${unknown.map((name) => `"${name}"`).join(', ')}; its parameters are prompt, input_type, sensitive.`;
  return { prompt, input_type: String(inputType), sensitive: sensitive || inputType === 'password' };
}

export function createHumanInputRequest(
  actionId: string,
  fields: { prompt: string; input_type: string; sensitive: boolean },
): HumanInputRequest {
  return { request_id: randomUUID(), action_id: actionId, timestamp: new Date().toISOString(), ...fields };
}

export function interactionFiles(paths: RunPaths) {
  return { request: join(paths.interactionDir, 'request.json'), response: join(paths.interactionDir, 'response.txt') };
}

/** Writes `interaction/request.json` for a person to answer in `interaction/response.txt`. */
export function writeInteractionRequest(paths: RunPaths, request: HumanInputRequest): void {
  makeDirectory(paths.interactionDir);
  const file = interactionFiles(paths).request;
  diskWrite(file, () => writeFileSync(file, `${JSON.stringify(request, null, 2)}\n`));
}

/** The answer in `interaction/response.txt`, if a person has written one (a final newline is dropped). */
export function readInteractionResponse(paths: RunPaths): string | undefined {
  const file = interactionFiles(paths).response;
  return readRunRecord(file, SMALL_RECORD_MAX_BYTES)
    ?.toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Removes the request and response once the answer is in the journal. */
export function clearInteraction(paths: RunPaths): void {
  const files = interactionFiles(paths);
  rmSync(files.request, { force: true });
  rmSync(files.response, { force: true });
}
