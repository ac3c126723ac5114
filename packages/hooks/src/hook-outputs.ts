import { join } from 'node:path';
import type { HookName } from './hook-names.js';
import { isPlainObject, readOutputJson, readOutputText } from './read-output-file.js';

/** What a hook can say in `output/control.json`. Only `skip` and `reason` mean something to the engine (pre_tool_execution). */
export interface HookControl {
  skip?: boolean;
  reason?: string;
  [key: string]: unknown;
}

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

  const control = readOutputJson(join(outputDir, 'control.json'));
  if (control.found) {
    if ('problem' in control) fail(control.problem);
    else if (!isPlainObject(control.value)) fail('output/control.json must be a JSON object such as {"skip": true, "reason": "..."}');
    else if (control.value.skip !== undefined && typeof control.value.skip !== 'boolean')
      fail('output/control.json: "skip" must be true or false');
    else if (control.value.reason !== undefined && typeof control.value.reason !== 'string')
      fail('output/control.json: "reason" must be a string');
    else outputs.control = control.value as HookControl;
  }

  if (name === 'pre_llm_request') {
    const payload = readOutputJson(join(outputDir, 'final_payload.json'));
    if (payload.found) {
      if ('problem' in payload) warnings.push(payload.problem);
      else {
        const problem = finalPayloadProblem(payload.value);
        if (problem === undefined) outputs.finalPayload = payload.value as Record<string, unknown>;
        else warnings.push(problem);
      }
    }
  }

  if (name === 'pre_tool_execution') {
    const args = readOutputJson(join(outputDir, 'tool_args.json'));
    if (args.found) {
      if ('problem' in args) fail(args.problem);
      else if (!isPlainObject(args.value)) fail("output/tool_args.json must be a JSON object of the tool's arguments");
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

function finalPayloadProblem(value: unknown): string | undefined {
  const expected = 'expected an object with a "messages" array and a "model" string, the request body to send';
  if (!isPlainObject(value)) return `output/final_payload.json is not a JSON object (${expected})`;
  if (!Array.isArray(value.messages)) return `output/final_payload.json has no "messages" array (${expected})`;
  if (typeof value.model !== 'string') return `output/final_payload.json has no "model" string (${expected})`;
  if (!value.messages.every(isPlainObject)) return 'output/final_payload.json: every entry of "messages" must be an object';
  return undefined;
}
