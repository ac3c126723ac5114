import { join } from 'node:path';
import { createTempAgent, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { runDelta, type DeltaResult } from '../test-support.js';

/** Tool output that must stay text in every view of a run. */
export const HOSTILE_OUTPUT = `<script>document.body.setAttribute('data-pwned','1')</script><img src=x onerror="document.body.setAttribute('data-pwned','2')">`;

const quoted = `'${HOSTILE_OUTPUT.replace(/'/g, `'"'"'`)}'`;

/** An agent with prices, whose print_html tool prints HOSTILE_OUTPUT (and a line on stderr). */
export const inspectAgentYaml = {
  name: 'inspect-me',
  llm: { model: 'test-model', pricing: { input_per_million: 2.5, output_per_million: 10, currency: 'USD' } },
  tools: [
    { name: 'write_file', description: 'Write a file', exec: 'tee -- ${path}', stdin: 'content' },
    { name: 'print_html', description: 'Print some HTML', shell: `printf '%s\\n' ${quoted}; echo 'to stderr' >&2` },
    { name: 'fail', description: 'Fail loudly', shell: 'echo "bad ${why}" >&2; exit 7' },
    { name: 'slow', description: 'Take a while', exec: 'sleep -- ${seconds}' },
  ],
};

/** Three iterations: two tools, then a failing one, then the answer; 6,170 tokens. */
export const threeIterations: ScriptStep[] = [
  {
    content: 'Writing a file and printing HTML.',
    tool_calls: [
      { id: 'call_write', name: 'write_file', arguments: { path: 'a.txt', content: 'alpha\n' } },
      { id: 'call_html', name: 'print_html', arguments: {} },
    ],
    usage: { prompt_tokens: 1000, completion_tokens: 100 },
  },
  {
    content: 'Now a failure.',
    tool_calls: [{ id: 'call_fail', name: 'fail', arguments: { why: 'luck' } }],
    usage: { prompt_tokens: 2000, completion_tokens: 50 },
  },
  { content: 'All done: a.txt says alpha.', usage: { prompt_tokens: 3000, completion_tokens: 20 } },
];

export interface RecordedRun {
  agent: string;
  workDir: string;
  result: DeltaResult;
  server: FakeLlm;
}

/** Records a real run with the built CLI against the fake model. */
export async function recordRun(
  script: ScriptStep[],
  options: { agent?: string; workspace?: string; args?: string[]; env?: Record<string, string> } = {},
): Promise<RecordedRun> {
  const server = await startFakeLlm({ script });
  const agent = options.agent ?? (await createTempAgent({ agentYaml: inspectAgentYaml }));
  const workDir = join(agent, 'workspaces', options.workspace ?? 'W001');
  const result = await runDelta(['run', '--agent', agent, '-m', 'Inspect me', '-w', workDir, ...(options.args ?? [])], {
    env: { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl, ...options.env },
  });
  await server.close();
  return { agent, workDir, result, server };
}
