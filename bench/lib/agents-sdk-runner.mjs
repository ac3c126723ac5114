// The OpenAI Agents SDK for JS doing what `delta run`/`delta batch` do in the scale bench, in one Node
// process: `tasks` runs ("task 1", "task 2", ...), `concurrency` at a time (a simple pool), each an Agent
// whose one function tool `step` runs the same external command as the delta agent's tool (execFile of
// echo), against the bench's fake model through the chat completions API, tracing off. Prints
// {"completed": N, "failed": N, "firstError": "..."} on stdout; exits 1 unless every run completed.
//
//   node agents-sdk-runner.mjs '{"peers": ".../bench/.peers/node_modules", "baseUrl": "...", "tasks": 64, ...}'
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const { peers, baseUrl, tasks, concurrency, stepArgument, maxTurns } = JSON.parse(process.argv[2]);
const load = (name, file) => import(pathToFileURL(join(peers, name, file)).href);
const { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } = await load('@openai/agents', 'dist/index.mjs');
const { default: OpenAI } = await load('openai', 'index.mjs');
const { z } = await load('zod', 'index.js');

setTracingDisabled(true);
setOpenAIAPI('chat_completions');
setDefaultOpenAIClient(new OpenAI({ baseURL: baseUrl, apiKey: 'bench' })); // its default retries (2), as delta's

const echo = promisify(execFile);
const step = stepArgument
  ? tool({
      name: 'step',
      description: 'Do one step',
      parameters: z.object({ n: z.string() }),
      execute: async ({ n }) => (await echo('echo', ['--', 'step', n])).stdout,
    })
  : tool({
      name: 'step',
      description: 'One trivial step',
      parameters: z.object({}),
      execute: async () => (await echo('echo', ['ok'])).stdout,
    });
const agent = new Agent({ name: 'bench', instructions: 'Do the task.', model: 'bench-model', tools: [step] });

let next = 1;
let completed = 0;
let failed = 0;
let firstError;
async function worker() {
  while (next <= tasks) {
    const index = next++;
    try {
      const result = await run(agent, `task ${index}`, { maxTurns });
      if (typeof result.finalOutput === 'string') completed += 1;
      else failed += 1;
    } catch (error) {
      failed += 1;
      firstError ??= String(error?.message ?? error);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, tasks) }, worker));
process.stdout.write(`${JSON.stringify({ completed, failed, firstError })}\n`);
process.exitCode = failed === 0 ? 0 : 1;
