// What a hook leaves in output/ is read as hostile input: real hook scripts plant a FIFO, links and an
// oversized file there, and the engine reads none of them, blocks on none, and says why, naming output/<file>.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runHook } from './index.js';
import { OUTPUT_FILE_LIMIT } from './read-output-file.js';
import { createHookRun, type HookRun } from './hook-run.test-fixture.js';

let run: HookRun;
beforeEach(() => {
  run = createHookRun();
});
afterEach(() => run.cleanup());

const toolCall = { name: 'say', arguments: { text: 'hi' }, action_id: 'call_1' };

function postToolHook(body: string) {
  return runHook(
    run.options('post_tool_execution', run.script('planted.sh', body), {
      toolName: 'say',
      toolResult: 'real output',
      inputs: { tool_call: toolCall, tool_result: { observation: 'real output', exit_code: 0 } },
    }),
  );
}

describe('output/ files that are not regular files the hook wrote', () => {
  it('a FIFO is not opened for reading (which would block for ever): the hook succeeds, nothing is read, a warning says why', async () => {
    const result = await postToolHook('mkfifo "$DELTA_HOOK_IO_PATH/output/observation.txt"');
    expect(result.status).toBe('SUCCESS');
    expect(result.outputs).toEqual({});
    expect(result.warnings).toEqual(['output/observation.txt is a FIFO (named pipe), not a regular file; it is not read']);
  });

  it('a link to a file outside output/ is not followed: its content is not read, and a gate it was meant to open fails closed', async () => {
    const outside = join(run.root, 'secret.json');
    writeFileSync(outside, '{"skip": false, "reason": "NOT FOR THE ENGINE"}');
    const command = run.script('planted.sh', `ln -s ${outside} "$DELTA_HOOK_IO_PATH/output/control.json"`);
    const result = await runHook(run.options('pre_tool_execution', command, { toolName: 'say', inputs: { tool_call: toolCall } }));
    const outputDir = join(result.ioPath, 'output');
    const problem = `output/control.json is a symbolic link to ${outside}, outside ${outputDir}; it is not read`;
    expect(result).toMatchObject({ status: 'SUCCESS', outputs: {}, warnings: [problem], gateProblem: problem });
    expect(JSON.stringify(result)).not.toContain('NOT FOR THE ENGINE');
  });

  it('a link to /dev/zero is not followed (it would never end)', async () => {
    const result = await postToolHook('ln -s /dev/zero "$DELTA_HOOK_IO_PATH/output/observation.txt"');
    expect(result.outputs).toEqual({});
    expect(result.warnings).toEqual(['output/observation.txt is a symbolic link to /dev/zero, a system file; it is not read']);
  });

  it('a file over OUTPUT_FILE_LIMIT is not read', async () => {
    const result = await postToolHook(`truncate -s ${OUTPUT_FILE_LIMIT + 1} "$DELTA_HOOK_IO_PATH/output/observation.txt"`);
    expect(result.outputs).toEqual({});
    expect(result.warnings).toEqual([
      `output/observation.txt is ${OUTPUT_FILE_LIMIT + 1} bytes, more than the ${OUTPUT_FILE_LIMIT} allowed; it is not read`,
    ]);
  });

  it("a link to another file in output/ is the hook's own file, and is read", async () => {
    const result = await postToolHook('cd "$DELTA_HOOK_IO_PATH/output" && printf "rewritten" > mine.txt && ln -s mine.txt observation.txt');
    expect(result).toMatchObject({ status: 'SUCCESS', outputs: { observation: 'rewritten' }, warnings: [] });
  });

  it('a JSON file nested 100000 levels deep is not parsed, and a gate it was meant to steer fails closed', async () => {
    writeFileSync(
      join(run.agentHome, 'hooks', 'deep.mjs'),
      `process.stdout.write('{"text":' + '['.repeat(1e5) + ']'.repeat(1e5) + '}');\n`,
    );
    const command = run.script('deep.sh', `"${process.execPath}" "$(dirname "$0")/deep.mjs" > "$DELTA_HOOK_IO_PATH/output/tool_args.json"`);
    const result = await runHook(run.options('pre_tool_execution', command, { toolName: 'say', inputs: { tool_call: toolCall } }));
    const problem = 'output/tool_args.json nests more than 256 levels deep; it is not read';
    expect(result).toMatchObject({ status: 'SUCCESS', outputs: {}, warnings: [problem], gateProblem: problem });
  });
});
