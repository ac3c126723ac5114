import { existsSync } from 'node:fs';
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

/** The spec's generic name (002 §6.4.1) for what a hook writes to override its payload. */
const PAYLOAD_OVERRIDE = 'payload_override.dat';

/** The hooks whose payload can be overridden, and the file each one names it with. */
const OVERRIDE_FILE: Partial<Record<HookName, string>> = {
  pre_llm_request: 'final_payload.json',
  pre_tool_execution: 'tool_args.json',
  post_tool_execution: 'observation.txt',
};

/**
 * The override file to read for `name`: its own file, else `payload_override.dat`, which every hook that can
 * override honours the same way. Two files, or an override from a hook that cannot override, are named in `warnings`.
 */
function overrideFileOf(name: HookName, outputDir: string, warnings: string[]): string | undefined {
  const own = OVERRIDE_FILE[name];
  const generic = existsSync(join(outputDir, PAYLOAD_OVERRIDE));
  if (own === undefined) {
    if (generic) {
      warnings.push(
        `output/${PAYLOAD_OVERRIDE} is ignored: the ${name} hook cannot override anything (only pre_llm_request, pre_tool_execution and post_tool_execution can)`,
      );
    }
    return undefined;
  }
  if (!existsSync(join(outputDir, own))) return generic ? join(outputDir, PAYLOAD_OVERRIDE) : undefined;
  if (generic) warnings.push(`output/${PAYLOAD_OVERRIDE} is ignored: output/${own} is there too, and it wins`);
  return join(outputDir, own);
}

/** The valid outputs of a hook that exited 0. Invalid files are left out and described in `warnings`. */
export interface HookOutputs {
  /** `output/control.json`, any hook. */
  control?: HookControl;
  /** `output/final_payload.json` or `output/payload_override.dat` (pre_llm_request): an object with a `messages` array and a `model` string. */
  finalPayload?: Record<string, unknown>;
  /** `output/tool_args.json` or `output/payload_override.dat` (pre_tool_execution): the arguments the tool runs with instead. */
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

  const overrideFile = overrideFileOf(name, outputDir, warnings);
  if (overrideFile === undefined) return { outputs, warnings, ...(gateProblem === undefined ? {} : { gateProblem }) };

  if (name === 'pre_llm_request') {
    const payload = readOutputJson(overrideFile, FinalPayload);
    if (payload.found) {
      if ('problem' in payload) warnings.push(payload.problem);
      else outputs.finalPayload = payload.value;
    }
  }

  if (name === 'pre_tool_execution') {
    const args = readOutputJson(overrideFile, ToolArgs);
    if (args.found) {
      if ('problem' in args) fail(args.problem);
      else outputs.toolArgs = args.value;
    }
  }

  if (name === 'post_tool_execution') {
    const observation = readOutputText(overrideFile);
    if (observation.found) {
      if ('problem' in observation) warnings.push(observation.problem);
      else outputs.observation = observation.value;
    }
  }

  return { outputs, warnings, ...(gateProblem === undefined ? {} : { gateProblem }) };
}
