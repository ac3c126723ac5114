import { existsSync, writeFileSync } from 'node:fs';
import { makeDirectory } from '@delta/errors';
import { join, relative, sep } from 'node:path';
import type { HookName } from './hook-names.js';

/** The JSON files the engine can give a hook in `input/`, named after the file each becomes. */
export interface HookInputs {
  /** `input/proposed_payload.json`: the request the engine is about to send (pre_llm_request). */
  proposed_payload?: unknown;
  /** `input/tool_call.json`: `{name, arguments, action_id}` (pre_tool_execution, post_tool_execution). */
  tool_call?: { name: string; arguments: unknown; action_id: string };
  /** `input/tool_result.json`: the tool's complete result (post_tool_execution). */
  tool_result?: unknown;
  /** `input/response.json`: the model's response (post_llm_response). */
  response?: unknown;
  /** `input/error.json`: what went wrong (on_error). */
  error?: unknown;
}

/** The paths of one hook execution: `io/hooks/{step}_{hook_name}/`. */
export interface HookDirectory {
  /** Absolute, with a trailing separator, as given to the hook in DELTA_HOOK_IO_PATH. */
  ioPath: string;
  /** Relative to the run directory, with a trailing `/`: the `io_path_ref` of HOOK_EXECUTION_AUDIT. */
  ioPathRef: string;
  inputDir: string;
  outputDir: string;
  metaDir: string;
}

/** `005_pre_llm_request`: the step padded to three digits, so a listing sorts in execution order. */
export function hookDirectoryName(step: number, name: HookName): string {
  return `${String(step).padStart(3, '0')}_${name}`;
}

/**
 * Creates the directory with `input/` filled, an empty `output/` and `execution_meta/`. A step already taken
 * (a resumed run that re-counts its steps) gets a `-2`, `-3` suffix, so no record, and no stale output, is reused.
 */
export function createHookDirectory(options: {
  hooksDir: string;
  runDir: string;
  step: number;
  name: HookName;
  context: Record<string, unknown>;
  inputs: HookInputs;
  /** `input/payload.dat`, written as given (see hookPayload). */
  payload: string;
}): HookDirectory {
  const base = join(options.hooksDir, hookDirectoryName(options.step, options.name));
  let dir = base;
  for (let suffix = 2; existsSync(dir); suffix += 1) dir = `${base}-${suffix}`;
  const directory: HookDirectory = {
    ioPath: dir + sep,
    ioPathRef: `${relative(options.runDir, dir).split(sep).join('/')}/`,
    inputDir: join(dir, 'input'),
    outputDir: join(dir, 'output'),
    metaDir: join(dir, 'execution_meta'),
  };
  for (const path of [directory.inputDir, directory.outputDir, directory.metaDir]) makeDirectory(path);
  writeJson(join(directory.inputDir, 'context.json'), options.context);
  writeFileSync(join(directory.inputDir, 'payload.dat'), options.payload);
  for (const [file, value] of Object.entries(options.inputs)) {
    if (value !== undefined) writeJson(join(directory.inputDir, `${file}.json`), value);
  }
  return directory;
}

function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
