import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runHook } from './index.js';
import { TOOL_RESULT_ENV_LIMIT } from './hook-environment.js';
import { createHookRun, DUMP_ENV, type HookRun } from './hook-run.test-fixture.js';

let run: HookRun;
beforeEach(() => {
  run = createHookRun();
});
afterEach(() => run.cleanup());

const toolCall = { name: 'write_file', arguments: { path: 'a.txt', content: 'hi' }, action_id: 'call_1' };

describe('runHook: the I/O directory', () => {
  it('names the directory {step padded to 3}_{hook}, gives absolute and run-relative paths, and fills input/ and execution_meta/', async () => {
    const command = run.script('pre.sh', 'echo to-stdout; echo to-stderr >&2; pwd > "$DELTA_HOOK_IO_PATH/output/pwd.txt"');
    const result = await runHook(
      run.options('pre_llm_request', command, { step: 5, inputs: { proposed_payload: { model: 'm', messages: [] } } }),
    );
    const dir = join(run.hooksDir, '005_pre_llm_request');
    expect(result.status).toBe('SUCCESS');
    expect(result.ioPath).toBe(`${dir}/`);
    expect(result.ioPathRef).toBe('io/hooks/005_pre_llm_request/');
    expect(readdirSync(dir).sort()).toEqual(['execution_meta', 'input', 'output']);
    expect(readdirSync(join(dir, 'input')).sort()).toEqual(['context.json', 'payload.dat', 'proposed_payload.json']);
    expect(run.json(join(dir, 'input', 'proposed_payload.json'))).toEqual({ model: 'm', messages: [] });
    expect(run.json(join(dir, 'input', 'context.json'))).toMatchObject({
      hook_name: 'pre_llm_request',
      step: 5,
      run_id: 'run-1',
      iteration: 3,
    });
    const meta = join(dir, 'execution_meta');
    expect(run.read(join(meta, 'command.txt'))).toBe(`${run.agentHome}/hooks/pre.sh\n`);
    expect(run.read(join(meta, 'stdout.log'))).toBe('to-stdout\n');
    expect(run.read(join(meta, 'stderr.log'))).toBe('to-stderr\n');
    expect(run.read(join(meta, 'exit_code.txt'))).toBe('0\n');
    expect(run.read(join(meta, 'duration_ms.txt'))).toMatch(/^\d+\n$/);
    expect(result.stdout.head).toBe('to-stdout\n');
    // The hook runs in the workspace.
    expect(run.read(join(dir, 'output', 'pwd.txt')).trim()).toBe(run.cwd);
  });

  it('pads steps to three digits and keeps larger steps whole', async () => {
    const command = run.script('noop.sh', 'true');
    expect((await runHook(run.options('on_iteration_start', command, { step: 1 }))).ioPathRef).toBe('io/hooks/001_on_iteration_start/');
    expect((await runHook(run.options('on_iteration_end', command, { step: 42 }))).ioPathRef).toBe('io/hooks/042_on_iteration_end/');
    expect((await runHook(run.options('on_run_end', command, { step: 1234 }))).ioPathRef).toBe('io/hooks/1234_on_run_end/');
  });

  it('never reuses a directory: a step taken again gets a suffix, so stale outputs are not read', async () => {
    const first = await runHook(
      run.options('post_tool_execution', run.script('a.sh', `printf old > "$DELTA_HOOK_IO_PATH/output/observation.txt"`), { step: 9 }),
    );
    const second = await runHook(run.options('post_tool_execution', run.script('b.sh', 'true'), { step: 9 }));
    expect(first.ioPathRef).toBe('io/hooks/009_post_tool_execution/');
    expect(second.ioPathRef).toBe('io/hooks/009_post_tool_execution-2/');
    expect(second.outputs).toEqual({});
    expect(run.read(join(first.ioPath, 'output', 'observation.txt'))).toBe('old');
  });

  it('substitutes ${AGENT_HOME} and ${CWD} in every part of the command and records it', async () => {
    const command = run.script('args.sh', 'printf "%s\\n" "$@" > "$DELTA_HOOK_IO_PATH/output/args.txt"');
    const result = await runHook(run.options('on_iteration_start', [...command, '${CWD}/notes', 'a b']));
    expect(run.read(join(result.ioPath, 'output', 'args.txt'))).toBe(`${run.cwd}/notes\na b\n`);
    expect(run.read(join(result.ioPath, 'execution_meta', 'command.txt'))).toBe(`${run.agentHome}/hooks/args.sh ${run.cwd}/notes 'a b'\n`);
  });
});

describe('runHook: each hook kind gets its inputs and environment', () => {
  it('every hook gets DELTA_RUN_ID, DELTA_HOOK_IO_PATH, DELTA_HOOK_NAME, RUN_DIR, JOURNAL_PATH and ITERATION_COUNT', async () => {
    const command = run.script('env.sh', DUMP_ENV);
    const result = await runHook(run.options('on_iteration_start', command, { step: 7 }));
    const env = run.json(join(result.ioPath, 'output', 'env.json')) as Record<string, string>;
    expect(env).toMatchObject({
      DELTA_RUN_ID: 'run-1',
      DELTA_HOOK_IO_PATH: `${join(run.hooksDir, '007_on_iteration_start')}/`,
      DELTA_HOOK_NAME: 'on_iteration_start',
      RUN_DIR: run.runDir,
      JOURNAL_PATH: run.journalPath,
      ITERATION_COUNT: '3',
    });
    expect(env.TOOL_NAME).toBeUndefined();
    expect(env.TOOL_RESULT).toBeUndefined();
    expect(env.ERROR_MESSAGE).toBeUndefined();
  });

  it('pre_tool_execution gets input/tool_call.json and TOOL_NAME', async () => {
    const command = run.script('gate.sh', DUMP_ENV);
    const result = await runHook(run.options('pre_tool_execution', command, { toolName: 'write_file', inputs: { tool_call: toolCall } }));
    expect(run.json(join(result.ioPath, 'input', 'tool_call.json'))).toEqual(toolCall);
    expect(run.json(join(result.ioPath, 'input', 'context.json'))).toMatchObject({ tool_name: 'write_file' });
    expect((run.json(join(result.ioPath, 'output', 'env.json')) as Record<string, string>).TOOL_NAME).toBe('write_file');
  });

  it('post_tool_execution gets tool_call.json, tool_result.json, TOOL_NAME and TOOL_RESULT', async () => {
    const command = run.script('post.sh', DUMP_ENV);
    const toolResult = { observation: 'written', exit_code: 0 };
    const result = await runHook(
      run.options('post_tool_execution', command, {
        toolName: 'write_file',
        toolResult: 'written',
        inputs: { tool_call: toolCall, tool_result: toolResult },
      }),
    );
    expect(run.json(join(result.ioPath, 'input', 'tool_result.json'))).toEqual(toolResult);
    expect(run.json(join(result.ioPath, 'input', 'tool_call.json'))).toEqual(toolCall);
    const env = run.json(join(result.ioPath, 'output', 'env.json')) as Record<string, string>;
    expect(env).toMatchObject({ TOOL_NAME: 'write_file', TOOL_RESULT: 'written', TOOL_RESULT_TRUNCATED: 'false' });
  });

  it('caps TOOL_RESULT in the environment at 64 KiB without splitting a character; the whole result is in input/', async () => {
    const command = run.script('post.sh', DUMP_ENV);
    const big = `${'x'.repeat(TOOL_RESULT_ENV_LIMIT - 1)}é${'y'.repeat(100_000)}`;
    const result = await runHook(
      run.options('post_tool_execution', command, {
        toolName: 't',
        toolResult: big,
        inputs: { tool_call: toolCall, tool_result: { observation: big } },
      }),
    );
    expect(result.status).toBe('SUCCESS');
    const env = run.json(join(result.ioPath, 'output', 'env.json')) as Record<string, string>;
    expect(env.TOOL_RESULT).toBe('x'.repeat(TOOL_RESULT_ENV_LIMIT - 1));
    expect(env.TOOL_RESULT_TRUNCATED).toBe('true');
    expect((run.json(join(result.ioPath, 'input', 'tool_result.json')) as { observation: string }).observation).toBe(big);
  });

  it('post_llm_response gets input/response.json', async () => {
    const command = run.script('resp.sh', 'cp "$DELTA_HOOK_IO_PATH/input/response.json" "$DELTA_HOOK_IO_PATH/output/seen.json"');
    const response = { content: 'thinking', tool_calls: [{ id: 'call_1', name: 'ls', arguments: '{}' }] };
    const result = await runHook(run.options('post_llm_response', command, { inputs: { response } }));
    expect(run.json(join(result.ioPath, 'output', 'seen.json'))).toEqual(response);
  });

  it('on_error gets input/error.json and ERROR_MESSAGE', async () => {
    const command = run.script('err.sh', DUMP_ENV);
    const result = await runHook(
      run.options('on_error', command, {
        errorMessage: 'model call failed: 500',
        inputs: { error: { message: 'model call failed: 500', code: 'LLM' } },
      }),
    );
    expect(run.json(join(result.ioPath, 'input', 'error.json'))).toEqual({ message: 'model call failed: 500', code: 'LLM' });
    expect((run.json(join(result.ioPath, 'output', 'env.json')) as Record<string, string>).ERROR_MESSAGE).toBe('model call failed: 500');
    expect(run.json(join(result.ioPath, 'input', 'context.json'))).toMatchObject({ error_message: 'model call failed: 500' });
  });

  it("on_run_end, on_iteration_start and on_iteration_end get context.json with the caller's facts", async () => {
    const command = run.script('ctx.sh', 'cp "$DELTA_HOOK_IO_PATH/input/context.json" "$DELTA_HOOK_IO_PATH/output/ctx.json"');
    for (const [step, name] of (['on_iteration_start', 'on_iteration_end', 'on_run_end'] as const).entries()) {
      const result = await runHook(run.options(name, command, { step: step + 1, context: { status: 'COMPLETED' } }));
      expect(readdirSync(join(result.ioPath, 'input')).sort()).toEqual(['context.json', 'payload.dat']);
      expect(run.json(join(result.ioPath, 'output', 'ctx.json'))).toMatchObject({ hook_name: name, status: 'COMPLETED', run_id: 'run-1' });
    }
  });

  it('gives the hook exactly the environment the caller passes plus the protocol variables: no API key leaks in', async () => {
    process.env.DELTA_API_KEY = 'sk-test-secret-123';
    try {
      const command = [
        process.execPath,
        '-e',
        'require("fs").writeFileSync(process.env.DELTA_HOOK_IO_PATH + "output/env.json", JSON.stringify(process.env))',
      ];
      const base = { PATH: run.env.PATH, LANG: 'C.UTF-8', DELTA_BASE_URL: 'http://localhost:1' };
      const result = await runHook(run.options('pre_llm_request', command, { env: base }));
      expect(result.status).toBe('SUCCESS');
      const seen = run.read(join(result.ioPath, 'output', 'env.json'));
      expect(seen).not.toContain('sk-test-secret-123');
      expect(Object.keys(JSON.parse(seen) as object).sort()).toEqual(
        [
          ...Object.keys(base),
          'DELTA_RUN_ID',
          'DELTA_HOOK_IO_PATH',
          'DELTA_HOOK_NAME',
          'RUN_DIR',
          'JOURNAL_PATH',
          'ITERATION_COUNT',
        ].sort(),
      );
    } finally {
      delete process.env.DELTA_API_KEY;
    }
  });
});

describe('runHook: outputs', () => {
  it('reads output/ only when the hook exits 0', async () => {
    const command = run.script(
      'bad.sh',
      'echo \'{"skip": true}\' > "$DELTA_HOOK_IO_PATH/output/control.json"; echo "nope" > "$DELTA_HOOK_IO_PATH/output/observation.txt"; exit 3',
    );
    const result = await runHook(run.options('post_tool_execution', command));
    expect(result).toMatchObject({ status: 'FAILED', exitCode: 3, timedOut: false, outputs: {}, warnings: [] });
    expect(result.failure).toBe('post_tool_execution hook exited with code 3');
  });

  it('returns a valid control.json for any hook and warns about an invalid one', async () => {
    const good = run.script('good.sh', 'echo \'{"note": "ok"}\' > "$DELTA_HOOK_IO_PATH/output/control.json"');
    expect((await runHook(run.options('on_iteration_end', good))).outputs).toEqual({ control: { note: 'ok' } });
    const bad = run.script('bad.sh', 'echo "{not json" > "$DELTA_HOOK_IO_PATH/output/control.json"');
    const result = await runHook(run.options('on_iteration_end', bad, { step: 2 }));
    expect(result.status).toBe('SUCCESS');
    expect(result.outputs).toEqual({});
    expect(result.warnings[0]).toMatch(/^output\/control\.json is not valid JSON/);
  });
});

describe('runHook: failing and hanging hooks', () => {
  it('records a crashing hook as FAILED with its exit code and stderr', async () => {
    const command = run.script('crash.sh', 'echo "boom" >&2; exit 1');
    const result = await runHook(run.options('on_error', command));
    expect(result).toMatchObject({ status: 'FAILED', exitCode: 1, timedOut: false, failure: 'on_error hook exited with code 1' });
    expect(result.stderr.head).toBe('boom\n');
    expect(run.read(join(result.ioPath, 'execution_meta', 'exit_code.txt'))).toBe('1\n');
  });

  it('kills a hanging hook and its whole process group at timeout_ms, quickly', async () => {
    const command = run.script('hang.sh', 'sleep 30 & echo $! > "$DELTA_HOOK_IO_PATH/output/child.pid"; sleep 30');
    const options = run.options('on_iteration_start', command);
    options.definition.timeout_ms = 300;
    const started = Date.now();
    const result = await runHook(options);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({
      status: 'FAILED',
      timedOut: true,
      exitCode: null,
      failure: 'on_iteration_start hook timed out after 300 ms and was stopped',
    });
    expect(run.read(join(result.ioPath, 'execution_meta', 'exit_code.txt'))).toBe('\n');
    const child = Number(run.read(join(result.ioPath, 'output', 'child.pid')));
    // The kill is sent; wait for the child to be gone rather than for a guessed delay (a live child fails here).
    await vi.waitFor(() => expect(isAlive(child)).toBe(false), { timeout: 5000, interval: 10 });
  });

  it('stops a hook when the run is interrupted', async () => {
    // Interrupted once the hook runs (it says so with a file), not after a delay it may not have started within.
    const started = join(run.agentHome, 'started');
    const command = run.script('hang.sh', `touch "${started}"; sleep 30`);
    const controller = new AbortController();
    const running = runHook(run.options('on_run_end', command, { signal: controller.signal }));
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 10_000, interval: 5 });
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ status: 'FAILED', aborted: true, timedOut: false });
  });

  it('records a hook that cannot start, with the reason in stderr.log', async () => {
    const result = await runHook(run.options('on_run_end', ['${AGENT_HOME}/hooks/missing.sh']));
    expect(result.status).toBe('FAILED');
    expect(result.failure).toMatch(/^on_run_end hook could not start: command not found/);
    expect(run.read(join(result.ioPath, 'execution_meta', 'stderr.log'))).toMatch(/command not found/);
    expect(existsSync(join(result.ioPath, 'execution_meta', 'duration_ms.txt'))).toBe(true);
  });
});

/** Running, not a zombie: an orphan killed in a container whose init does not reap it stays a zombie. */
function isAlive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
