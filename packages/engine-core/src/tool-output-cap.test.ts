// What the model is shown of a tool's output: the agent's max_tool_output_bytes, a tool's own max_output_bytes.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { DEFAULT_TOOL_OUTPUT_BYTES } from './agent-config.js';
import { loadAgent } from './load-agent.js';
import { callTool, toolCallContext } from './tool-call.test-support.js';

afterEach(() => cleanupTempDirs());

// 10,000 bytes: "<" then 9,998 letters then ">", so the head and the tail kept are easy to see.
const loud = (extra: Record<string, unknown> = {}) => ({
  name: 'loud',
  description: 'Prints 10,000 bytes',
  shell: `printf '<'; head -c 9998 /dev/zero | tr '\\0' x; printf '>'`,
  ...extra,
});

describe('the tool output the model is shown', () => {
  it('is the whole output up to the default of 128 KiB per stream', async () => {
    expect(DEFAULT_TOOL_OUTPUT_BYTES).toBe(128 * 1024);
    const outcome = await callTool(await toolCallContext([loud()]), 'loud');
    expect(outcome.observation).toBe(`<${'x'.repeat(9998)}>`);
  });

  it("follows the agent's max_tool_output_bytes, first and last halves, naming the file with everything", async () => {
    const context = await toolCallContext([loud()], { maxOutputBytes: 400 });
    const outcome = await callTool(context, 'loud');
    expect(outcome.observation).toBe(
      `<${'x'.repeat(199)}\n[... 9600 bytes omitted of 10000; the full output is in .delta/${context.paths.runId}/io/tool_executions/call_loud/stdout.log ...]\n${'x'.repeat(199)}>`,
    );
    expect(readFileSync(`${context.paths.toolExecutionsDir}/call_loud/stdout.log`, 'utf8')).toHaveLength(10_000);
  });

  it("lets a tool's own max_output_bytes win over the agent's", async () => {
    const context = await toolCallContext([loud({ max_output_bytes: 100 })], { maxOutputBytes: 400 });
    expect((await callTool(context, 'loud')).observation).toMatch(/^<x{49}\n\[\.\.\. 9900 bytes omitted of 10000; .*\]\nx{49}>$/);
  });

  it('refuses a cap out of range in agent.yaml or in a tool, naming the field and the range', async () => {
    const agentWide = await createTempAgent({ agentYaml: 'name: a\nllm: {model: m}\nmax_tool_output_bytes: 10\n' });
    expect(() => loadAgent(agentWide)).toThrow(/agent\.yaml:3:24 max_tool_output_bytes: .*>=64/s);
    const perTool = await createTempAgent({
      agentYaml: 'name: a\nllm: {model: m}\ntools:\n  - name: t\n    description: T.\n    exec: echo hi\n    max_output_bytes: 0\n',
    });
    expect(() => loadAgent(perTool)).toThrow(/tools\[0\]\.max_output_bytes: .*Expected a whole number of bytes from 64 to 67108864/s);
  });
});
