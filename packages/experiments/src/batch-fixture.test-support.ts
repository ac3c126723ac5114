import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempAgent, createTempDir, type RecordedRequest, type ScriptStepInput } from '@delta/testkit';

/** An agent with one tool, `note`, that appends its text to notes.txt in the workspace. */
export function createNoteAgent(extra: Record<string, unknown> = {}): Promise<string> {
  return createTempAgent({
    agentYaml: {
      name: 'noter',
      llm: { model: 'fake-model', max_retries: 0 },
      tools: [{ name: 'note', description: 'Append a line to notes.txt', exec: 'tee -a -- notes.txt', stdin: 'text' }],
      ...extra,
    },
  });
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (part as { text?: string }).text ?? '').join('');
  return '';
}

/**
 * The model of a batch test: for a task "Say X" it calls `note` twice, then answers "X". Works for any
 * number of runs at once, since it reads the conversation it is sent.
 */
export function noteScript(options: { answerDelayMs?: number } = {}): (request: RecordedRequest) => ScriptStepInput {
  return (request) => {
    const messages = (request.body as { messages: { role: string; content: unknown }[] }).messages;
    const task = text(messages.find((message) => message.role === 'user')?.content);
    const tools = messages.filter((message) => message.role === 'tool').length;
    if (tools < 2) return { tool_calls: [{ name: 'note', arguments: { text: `step ${tools + 1} of ${task}\n` } }] };
    const answer = task.replace(/^Say /, '');
    return { content: answer, ...(options.answerDelayMs ? { delay_ms: options.answerDelayMs } : {}) };
  };
}

/** A TASKS file of `count` tasks t1..tN, "Say <n * 2>" with expected n * 2 (task t3 expects a wrong value when `wrong`). */
export async function writeTasks(count: number, options: { wrong?: string[] } = {}): Promise<string> {
  const directory = await createTempDir('delta-tasks-');
  const lines = Array.from({ length: count }, (_, index) => {
    const id = `t${index + 1}`;
    const value = String((index + 1) * 2);
    const expected = options.wrong?.includes(id) ? 'nope' : value;
    return JSON.stringify({ id, message: `Say ${value}`, files: { 'task.txt': `${id}\n` }, expected, metadata: { index } });
  });
  const file = join(directory, 'tasks.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
