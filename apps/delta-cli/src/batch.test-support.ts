// What the `delta batch` e2e test files share: the testkit's server, on which each task makes two `note` tool
// calls, then answers; tasks files; and `delta batch` started as a process.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempAgent, createTempDir, type FakeLlm, type RecordedRequest, startFakeLlm, modelEnv } from '@delta/testkit';
import { DELTA_BIN } from './test-support.js';

export function userText(request: RecordedRequest): string {
  const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
  return JSON.stringify(messages.find((message) => message.role === 'user')?.content ?? '');
}

export function toolResults(request: RecordedRequest): number {
  return (request.body as { messages: { role: string }[] }).messages.filter((message) => message.role === 'tool').length;
}

/** The file's model server: started by `startLlm` (a beforeAll), closed by `stopLlm` (an afterAll). */
export let llm: FakeLlm;

/**
 * Starts the model server; `onRequest` is called with each request it answers, and the answer waits for
 * what it returns (a test holds a request, so that its run waits on the model, until it lets it go).
 */
export async function startLlm(onRequest: (request: RecordedRequest) => void | Promise<void> = () => {}): Promise<void> {
  llm = await startFakeLlm({
    script: async (request) => {
      await onRequest(request);
      const tools = toolResults(request);
      if (tools < 2) return { tool_calls: [{ name: 'note', arguments: { text: `step ${tools + 1}\n` } }], delay_ms: 20 };
      return { content: `answer to ${JSON.parse(userText(request))}`, delay_ms: 120 };
    },
  });
}

export async function stopLlm(): Promise<void> {
  await llm.close();
}

export const agentYaml = {
  name: 'batcher',
  llm: { model: 'fake-model', max_retries: 0 },
  // Unsandboxed, so that a tool call is the only thing a batch's run does outside the engine. The SIGKILL
  // test kills when no call is in flight: one the kill lands in is not run again, and the model is told.
  sandbox: { mode: 'off' },
  tools: [{ name: 'note', description: 'Append a line to notes.txt', exec: 'tee -a -- notes.txt', stdin: 'text' }],
};

export async function setup(tasks: number): Promise<{ agent: string; tasksFile: string; out: string; env: Record<string, string> }> {
  const agent = await createTempAgent({ agentYaml });
  const directory = await createTempDir();
  const tasksFile = join(directory, 'tasks.jsonl');
  const lines = Array.from({ length: tasks }, (_, index) => JSON.stringify({ id: `task-${index + 1}`, message: `do ${index + 1}` }));
  writeFileSync(tasksFile, `${lines.join('\n')}\n`);
  return { agent, tasksFile, out: join(directory, 'out'), env: modelEnv(llm) };
}

export function runDirectory(out: string, task: string, repeat = 1): string {
  return join(out, task, 'fake-model', String(repeat));
}

/** Starts `delta batch` and resolves with its exit once it ends; `stop` sends it a signal. */
export function startBatch(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [DELTA_BIN, 'batch', ...args], {
    env: { ...process.env, DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, exited };
}

export function jsonEvents(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
