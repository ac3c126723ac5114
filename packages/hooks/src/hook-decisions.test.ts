import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gateDecision, observationOverride, payloadOverride, runHook } from './index.js';
import { createHookRun, type HookRun } from './hook-run.test-fixture.js';

let run: HookRun;
beforeEach(() => {
  run = createHookRun();
});
afterEach(() => run.cleanup());

const OUT = '"$DELTA_HOOK_IO_PATH/output';
const proposed = { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] };
const toolCall = { name: 'delete_file', arguments: { path: 'a.txt' }, action_id: 'call_9' };

async function preLlm(body: string) {
  const result = await runHook(run.options('pre_llm_request', run.script('pre.sh', body), { inputs: { proposed_payload: proposed } }));
  return { result, override: payloadOverride(result) };
}

async function gate(body: string) {
  const result = await runHook(
    run.options('pre_tool_execution', run.script('gate.sh', body), { toolName: 'delete_file', inputs: { tool_call: toolCall } }),
  );
  return { result, decision: gateDecision(result) };
}

describe('payloadOverride (pre_llm_request)', () => {
  it('uses a valid final_payload.json', async () => {
    const { override } = await preLlm(
      `python3 -c '
import json, os
io = os.environ["DELTA_HOOK_IO_PATH"]
p = json.load(open(io + "input/proposed_payload.json"))
p["messages"].insert(0, {"role": "system", "content": "be brief"})
json.dump(p, open(io + "output/final_payload.json", "w"))'`,
    );
    expect(override).toEqual({ payload: { model: 'gpt-test', messages: [{ role: 'system', content: 'be brief' }, ...proposed.messages] } });
  });

  it('changes nothing, without a problem, when the hook writes no final_payload.json', async () => {
    expect((await preLlm('true')).override).toEqual({});
  });

  it.each([
    ['not JSON', '{"messages": [', /^pre_llm_request hook: output\/final_payload\.json is not valid JSON/],
    [
      'not an object',
      '[1, 2]',
      /output\/final_payload\.json: field \(top level\): must be a JSON object with a "messages" array and a "model" string/,
    ],
    ['no messages array', '{"model": "m", "messages": "hi"}', /output\/final_payload\.json: field messages: must be an array of messages;/],
    ['no model', '{"messages": []}', /output\/final_payload\.json: field model: must be a string;/],
  ])('falls back to the proposed payload when final_payload.json is %s', async (_label, content, problem) => {
    const { result, override } = await preLlm(`printf '%s' '${content}' > ${OUT}/final_payload.json"`);
    expect(result.status).toBe('SUCCESS');
    expect(override.payload).toBeUndefined();
    expect(override.problem).toMatch(problem);
    expect(override.problem).toMatch(/the unmodified payload is sent$/);
  });

  it('falls back when the hook fails, even if it wrote a valid final_payload.json', async () => {
    const { result, override } = await preLlm(`echo '{"model": "m", "messages": []}' > ${OUT}/final_payload.json"; exit 2`);
    expect(result.outputs).toEqual({});
    expect(override).toEqual({ problem: 'pre_llm_request hook exited with code 2; the unmodified payload is sent' });
  });
});

describe('gateDecision (pre_tool_execution)', () => {
  it('lets the tool run when the hook exits 0 and says nothing', async () => {
    const { decision } = await gate(`test "$TOOL_NAME" = delete_file`);
    expect(decision).toEqual({ run: true });
  });

  it('blocks on a non-zero exit and tells the model what the hook wrote to stderr', async () => {
    const { decision } = await gate('echo "deleting files is not allowed here" >&2; exit 1');
    expect(decision).toEqual({
      run: false,
      reason: 'Blocked by the pre_tool_execution hook: pre_tool_execution hook exited with code 1: deleting files is not allowed here',
    });
  });

  it('blocks on {"skip": true} in control.json, with its reason', async () => {
    const { decision } = await gate(`echo '{"skip": true, "reason": "a.txt is protected"}' > ${OUT}/control.json"`);
    expect(decision).toEqual({ run: false, reason: 'Blocked by the pre_tool_execution hook: a.txt is protected' });
    const { decision: withoutReason } = await gate(`echo '{"skip": true}' > ${OUT}/control.json"`);
    expect(withoutReason).toEqual({ run: false, reason: 'Blocked by the pre_tool_execution hook: it asked to skip this call' });
  });

  it('runs on {"skip": false}', async () => {
    expect((await gate(`echo '{"skip": false}' > ${OUT}/control.json"`)).decision).toEqual({ run: true });
  });

  it('rewrites the arguments from tool_args.json', async () => {
    const { decision } = await gate(`echo '{"path": "trash/a.txt"}' > ${OUT}/tool_args.json"`);
    expect(decision).toEqual({ run: true, args: { path: 'trash/a.txt' } });
  });

  it.each([
    ['control.json that is not JSON', `echo '{skip' > ${OUT}/control.json"`, /output\/control\.json is not valid JSON/],
    [
      'control.json whose skip is not a boolean',
      `echo '{"skip": "yes"}' > ${OUT}/control.json"`,
      /output\/control\.json: field skip: must be true or false$/,
    ],
    [
      'tool_args.json that is not an object',
      `echo '["a.txt"]' > ${OUT}/tool_args.json"`,
      /output\/tool_args\.json: field \(top level\): must be a JSON object of the tool's arguments$/,
    ],
  ])('fails closed on %s', async (_label, body, reason) => {
    const { decision } = await gate(body);
    expect(decision.run).toBe(false);
    expect(decision.reason).toMatch(reason);
  });

  it('fails closed on a timeout', async () => {
    const options = run.options('pre_tool_execution', run.script('slow.sh', 'sleep 30'), { inputs: { tool_call: toolCall } });
    options.definition.timeout_ms = 200;
    const decision = gateDecision(await runHook(options));
    expect(decision).toEqual({
      run: false,
      reason: 'Blocked by the pre_tool_execution hook: pre_tool_execution hook timed out after 200 ms and was stopped',
    });
  });
});

describe('observationOverride (post_tool_execution)', () => {
  async function post(body: string) {
    const command = run.script('post.sh', body);
    return runHook(
      run.options('post_tool_execution', command, { toolName: 'ls', toolResult: 'a.txt\nb.txt\n', inputs: { tool_call: toolCall } }),
    );
  }

  it('replaces the observation from observation.txt and leaves the logs alone', async () => {
    const result = await post(`echo "hook log line"; printf '2 files' > ${OUT}/observation.txt"`);
    expect(observationOverride(result)).toBe('2 files');
    expect(run.read(join(result.ioPath, 'execution_meta', 'stdout.log'))).toBe('hook log line\n');
  });

  it('accepts payload_override.dat, the v1.1 name', async () => {
    expect(observationOverride(await post(`printf 'short' > ${OUT}/payload_override.dat"`))).toBe('short');
  });

  it('changes nothing when the hook writes no file or fails', async () => {
    expect(observationOverride(await post('true'))).toBeUndefined();
    expect(observationOverride(await post(`printf 'x' > ${OUT}/observation.txt"; exit 1`))).toBeUndefined();
  });
});
