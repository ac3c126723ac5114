// What the models-file e2e test files share: two models, each on its own server (two testkit servers) with its
// own key (two variables), prices and parameters. Bravo's server quotes alpha's key back in its answer: every
// key of the file, not only the run's own, must stay out of OUT/, Redis and traces.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent, createTempDir, type FakeLlm, type RecordedRequest, startFakeLlm } from '@delta/testkit';
import { expect } from 'vitest';
import type { RunningDelta } from './test-processes.test-support.js';

export const ALPHA_KEY = 'sk-alpha-0123456789abcdef';
export const BRAVO_KEY = 'sk-bravo-fedcba9876543210';
export const KEYS = { ALPHA_KEY, BRAVO_KEY };

function hasToolResult(request: RecordedRequest): boolean {
  return (request.body as { messages: { role: string }[] }).messages.some((message) => message.role === 'tool');
}

/** One tool call that prints the tool's environment, then an answer; the same usage on every run. */
function script(answer: string) {
  return (request: RecordedRequest) =>
    hasToolResult(request)
      ? { content: answer, usage: { prompt_tokens: 1000, completion_tokens: 200 } }
      : { tool_calls: [{ name: 'show_env', arguments: {} }], usage: { prompt_tokens: 500, completion_tokens: 50, cached_tokens: 100 } };
}

/** The two model servers: started by `startModelServers` (a beforeAll), closed by `stopModelServers` (an afterAll). */
export let alpha: FakeLlm;
export let bravo: FakeLlm;
/** What a test started, ended by `cleanUp` (an afterEach). */
export const open: Array<{ close: () => Promise<void> }> = [];
export const processes: RunningDelta[] = [];

export async function startModelServers(): Promise<void> {
  alpha = await startFakeLlm({ script: script('alpha is done') });
  bravo = await startFakeLlm({ script: script(`bravo is done; the other key is ${ALPHA_KEY}`) });
}

export async function cleanUp(): Promise<void> {
  for (const running of processes.splice(0))
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
  for (const thing of open.splice(0)) await thing.close();
  alpha.requests.length = 0;
  bravo.requests.length = 0;
  await cleanupTempDirs();
}

export async function stopModelServers(): Promise<void> {
  await alpha?.close();
  await bravo?.close();
}

const agentYaml = {
  name: 'two-models',
  // agent.yaml's own model and prices: with a models file, no run may use them.
  llm: { model: 'agent-default', temperature: 0.7, max_retries: 0, pricing: { input_per_million: 100, output_per_million: 100 } },
  sandbox: { mode: 'off' },
  // The environment goes to a workspace file too, which the engine does not redact: it shows what the tool got.
  tools: [{ name: 'show_env', description: "Print the tool's environment", shell: 'env | tee tool-env.txt' }],
};

export function modelsYaml(bravoInput = 0.5): string {
  return [
    'models:',
    '  - name: alpha',
    '    model: alpha-id',
    `    base_url: ${alpha.baseUrl}`,
    '    api_key_env: ALPHA_KEY',
    '    pricing: {input_per_million: 2, cached_input_per_million: 1, output_per_million: 8}',
    '    temperature: 0',
    '  - name: bravo',
    '    model: bravo-id',
    `    base_url: ${bravo.baseUrl}`,
    '    api_key_env: BRAVO_KEY',
    `    pricing: {input_per_million: ${bravoInput}, output_per_million: 1.5}`,
    '    reasoning_effort: high',
    '    extra_body: {top_k: 7}',
    '',
  ].join('\n');
}

// By hand: each run's usage is 1500 prompt tokens (100 of them cached), 250 completion tokens.
// alpha: (1400 × 2 + 100 × 1 + 250 × 8) / 1e6; bravo has no cached price, so every prompt token is input: (1500 × 0.5 + 250 × 1.5) / 1e6.
export const ALPHA_RUN_COST = (1400 * 2 + 100 * 1 + 250 * 8) / 1_000_000;
export const BRAVO_RUN_COST = (1500 * 0.5 + 250 * 1.5) / 1_000_000;

export async function setup(): Promise<{ agent: string; directory: string; tasksFile: string; models: string }> {
  const agent = await createTempAgent({ agentYaml });
  const directory = await createTempDir('models-');
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'do one' })}\n${JSON.stringify({ id: 't2', message: 'do two' })}\n`);
  const models = join(directory, 'models.yaml');
  writeFileSync(models, modelsYaml());
  return { agent, directory, tasksFile, models };
}

/** Every file under `directory` whose bytes hold one of the keys. */
export function filesHoldingKeys(directory: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(directory, { recursive: true, encoding: 'utf8' })) {
    const file = join(directory, name);
    if (!statSync(file).isFile()) continue;
    const bytes = readFileSync(file);
    if (bytes.includes(ALPHA_KEY) || bytes.includes(BRAVO_KEY)) found.push(name);
  }
  return found;
}

export function expectEachRequestToItsServer(): void {
  expect(alpha.requests.length).toBeGreaterThan(0);
  expect(bravo.requests.length).toBeGreaterThan(0);
  for (const request of alpha.requests) {
    expect(request.headers.authorization).toBe(`Bearer ${ALPHA_KEY}`);
    expect(request.body.model).toBe('alpha-id');
    expect(request.body.temperature).toBe(0);
  }
  for (const request of bravo.requests) {
    expect(request.headers.authorization).toBe(`Bearer ${BRAVO_KEY}`);
    expect(request.body).toMatchObject({ model: 'bravo-id', temperature: 0.7, reasoning_effort: 'high', top_k: 7 });
  }
}

export function runCost(workDir: string): number | undefined {
  return readMetadata(runPaths(workDir, readLatestRunId(workDir)!).metadata).estimated_cost?.amount;
}
