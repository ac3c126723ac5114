import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_NAMES, runHook } from './index.js';
import { createHookRun, type HookRun } from './hook-run.test-fixture.js';

let run: HookRun;
beforeEach(() => {
  run = createHookRun();
});
afterEach(() => run.cleanup());

const toolCall = { name: 'write_file', arguments: { path: 'a.txt', content: 'hi' }, action_id: 'call_1' };
const ECHO_BACK = 'cp "$DELTA_HOOK_IO_PATH/input/payload.dat" "$DELTA_HOOK_IO_PATH/output/payload_override.dat"';

describe('input/payload.dat (spec 002 §6.4.1)', () => {
  it('every hook gets it', async () => {
    const command = run.script('noop.sh', 'true');
    for (const [step, name] of HOOK_NAMES.entries()) {
      const result = await runHook(run.options(name, command, { step: step + 1 }));
      expect(existsSync(join(result.ioPath, 'input', 'payload.dat')), name).toBe(true);
    }
  });

  it('pre_llm_request: the proposed request, which sent back unchanged as the override is the request sent', async () => {
    const proposed = { model: 'm', messages: [{ role: 'user', content: 'hi' }], temperature: 0 };
    const result = await runHook(
      run.options('pre_llm_request', run.script('echo.sh', ECHO_BACK), { inputs: { proposed_payload: proposed } }),
    );
    expect(run.json(join(result.ioPath, 'input', 'payload.dat'))).toEqual(proposed);
    expect(result.outputs.finalPayload).toEqual(proposed);
    expect(result.warnings).toEqual([]);
  });

  it("pre_tool_execution: the call's arguments, in tool_args.json's format", async () => {
    const result = await runHook(
      run.options('pre_tool_execution', run.script('echo.sh', ECHO_BACK), { toolName: 'write_file', inputs: { tool_call: toolCall } }),
    );
    expect(run.json(join(result.ioPath, 'input', 'payload.dat'))).toEqual(toolCall.arguments);
    expect(result.outputs.toolArgs).toEqual(toolCall.arguments);
    expect(result.gateProblem).toBeUndefined();
  });

  it("post_tool_execution: the observation as text, byte for byte, in observation.txt's format", async () => {
    const observation = 'line 1\nline 2 é';
    const upper = 'tr a-z A-Z < "$DELTA_HOOK_IO_PATH/input/payload.dat" > "$DELTA_HOOK_IO_PATH/output/payload_override.dat"';
    const result = await runHook(
      run.options('post_tool_execution', run.script('upper.sh', upper), {
        toolName: 'write_file',
        toolResult: observation,
        inputs: { tool_call: toolCall, tool_result: { observation, exit_code: 0 } },
      }),
    );
    expect(run.read(join(result.ioPath, 'input', 'payload.dat'))).toBe(observation);
    expect(result.outputs.observation).toBe('LINE 1\nLINE 2 é');
  });

  it("the other hooks: their main input (the response, the error, or the trigger's facts) as JSON", async () => {
    const command = run.script('noop.sh', 'true');
    const response = { content: 'thinking', tool_calls: [] };
    const post = await runHook(run.options('post_llm_response', command, { step: 1, inputs: { response } }));
    expect(run.json(join(post.ioPath, 'input', 'payload.dat'))).toEqual(response);
    const error = { message: 'model call failed: 500', code: 'LLM' };
    const failed = await runHook(run.options('on_error', command, { step: 2, errorMessage: error.message, inputs: { error } }));
    expect(run.json(join(failed.ioPath, 'input', 'payload.dat'))).toEqual(error);
    const end = await runHook(run.options('on_run_end', command, { step: 3, context: { status: 'COMPLETED' } }));
    expect(run.read(join(end.ioPath, 'input', 'payload.dat'))).toBe(run.read(join(end.ioPath, 'input', 'context.json')));
  });
});
