import { join } from 'node:path';
import { z } from 'zod';
import type { HookName } from './hook-names.js';
import { readOutputJson, readOutputText } from './read-output-file.js';

/** What a hook can say in `output/control.json`. Only `skip` and `reason` mean something to the engine (pre_tool_execution). */
export const HookControl = z.looseObject(
  {
    skip: z.boolean({ error: 'must be true or false' }).optional(),
    reason: z.string({ error: 'must be a string' }).optional(),
  },
  { error: 'must be a JSON object such as {"skip": true, "reason": "..."}' },
);
export type HookControl = z.infer<typeof HookControl>;

/** `output/tool_args.json` (pre_tool_execution): the arguments the tool runs with instead. */
const ToolArgs = z.record(z.string(), z.unknown(), { error: "must be a JSON object of the tool's arguments" });

/** `output/final_payload.json` (pre_llm_request): the request body to send. */
const FinalPayload = z.looseObject(
  {
    messages: z.array(z.record(z.string(), z.unknown(), { error: 'must be an object' }), { error: 'must be an array of messages' }),
    model: z.string({ error: 'must be a string' }),
  },
  { error: 'must be a JSON object with a "messages" array and a "model" string, the request body to send' },
);

/** The valid outputs of a hook that exited 0. Invalid files are left out and described in `warnings`. */
export interface HookOutputs {
  /** `output/control.json`, any hook. */
  control?: HookControl;
  /** `output/final_payload.json` (pre_llm_request): an object with a `messages` array and a `model` string. */
  finalPayload?: Record<string, unknown>;
  /** `output/tool_args.json` (pre_tool_execution): the arguments the tool runs with instead. */
  toolArgs?: Record<string, unknown>;
  /** `output/observation.txt` or `output/payload_override.dat` (post_tool_execution): what the model sees instead. */
  observation?: string;
}

/** Problems with outputs that would otherwise change what the engine does; a gate treats them as a block. */
export interface ReadHookOutputs {
  outputs: HookOutputs;
  warnings: string[];
  /** pre_tool_execution only: its control.json or tool_args.json was unusable, so the gate fails closed. */
  gateProblem?: string;
}

/** Reads and validates what the hook wrote to `output/`, for its kind of hook. */
export function readHookOutputs(name: HookName, outputDir: string): ReadHookOutputs {
  const outputs: HookOutputs = {};
  const warnings: string[] = [];
  let gateProblem: string | undefined;
  const fail = (problem: string) => {
    warnings.push(problem);
    if (name === 'pre_tool_execution') gateProblem ??= problem;
  };

  const control = readOutputJson(join(outputDir, 'control.json'), HookControl);
  if (control.found) {
    if ('problem' in control) fail(control.problem);
    else outputs.control = control.value;
  }

  if (name === 'pre_llm_request') {
    const payload = readOutputJson(join(outputDir, 'final_payload.json'), FinalPayload);
    if (payload.found) {
      if ('problem' in payload) warnings.push(payload.problem);
      else outputs.finalPayload = payload.value;
    }
  }

  if (name === 'pre_tool_execution') {
    const args = readOutputJson(join(outputDir, 'tool_args.json'), ToolArgs);
    if (args.found) {
      if ('problem' in args) fail(args.problem);
      else outputs.toolArgs = args.value;
    }
  }

  if (name === 'post_tool_execution') {
    for (const file of ['observation.txt', 'payload_override.dat']) {
      const observation = readOutputText(join(outputDir, file));
      if (!observation.found) continue;
      if ('problem' in observation) warnings.push(observation.problem);
      else outputs.observation = observation.value;
      break;
    }
  }

  return { outputs, warnings, ...(gateProblem === undefined ? {} : { gateProblem }) };
}
