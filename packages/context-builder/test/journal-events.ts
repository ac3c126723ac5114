import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { foldEvents, type JournalEvent } from '@delta/journal';
import { buildContextMessages, loadContextManifest, type BuildContextOptions, type ChatMessage } from '../src/index.js';
import { type JournalMessagesOptions, journalToMessages } from '../src/journal-messages.js';

let seq = 0;
const timestamp = '2025-01-01T00:00:00.000Z';

export const user = (content: string): JournalEvent => ({ seq: ++seq, timestamp, type: 'USER_MESSAGE', content });

export const thought = (iteration: number, content: string | null, calls: string[] = [], name = 'tool'): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'THOUGHT',
  iteration,
  content,
  llm_invocation_ref: `inv${iteration}`,
  tool_calls: calls.map((id) => ({ id, name, arguments: `{"id":"${id}"}` })),
});

export const result = (iteration: number, id: string, text: string, name = 'tool'): JournalEvent => ({
  seq: ++seq,
  timestamp,
  type: 'ACTION_RESULT',
  iteration,
  action_id: id,
  tool_name: name,
  status: 'SUCCESS',
  observation_content: text,
  exit_code: 0,
});

/** The conversation of these events (folded from scratch). */
export function messagesOf(events: readonly JournalEvent[], options: JournalMessagesOptions = {}): ChatMessage[] {
  return journalToMessages(foldEvents(events), options);
}

/** A task, then `count` iterations of one tool call each, the result `observation(i)`. */
export function iterations(count: number, observation: (iteration: number) => string = (i) => `r${i}`): JournalEvent[] {
  const events = [user('task')];
  for (let iteration = 1; iteration <= count; iteration += 1) {
    events.push(thought(iteration, `i${iteration}`, [`c${iteration}`]), result(iteration, `c${iteration}`, observation(iteration)));
  }
  return events;
}

/** The pairing rule a strict API enforces: every tool call answered right after it, no stray tool message. */
export function expectStrictConversation(messages: readonly ChatMessage[]): void {
  let waiting: string[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      if (!waiting.includes(message.tool_call_id)) throw new Error(`orphaned tool result ${message.tool_call_id}`);
      waiting = waiting.filter((id) => id !== message.tool_call_id);
      continue;
    }
    if (waiting.length > 0) throw new Error(`tool calls ${waiting.join(', ')} not answered before a ${message.role} message`);
    if (message.role === 'assistant') waiting = (message.tool_calls ?? []).map((call) => call.id);
  }
  if (waiting.length > 0) throw new Error(`tool calls ${waiting.join(', ')} never answered`);
}

const dirs: string[] = [];
export function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-context-'));
  dirs.push(dir);
  return dir;
}
export function cleanup(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes context.yaml (and any files) into a fresh agent directory and builds the context in a fresh workspace. */
export async function build(
  contextYaml: string,
  options: { files?: Record<string, string>; events?: JournalEvent[]; extra?: Partial<BuildContextOptions> } = {},
) {
  const agent = temp();
  const work = temp();
  writeFileSync(join(agent, 'context.yaml'), contextYaml);
  for (const [name, content] of Object.entries(options.files ?? {})) writeFileSync(join(agent, name), content);
  const loaded = loadContextManifest(agent);
  const run = () =>
    buildContextMessages({
      manifest: loaded.manifest,
      manifestFile: loaded.file,
      agentHome: agent,
      cwd: work,
      runId: 'R1',
      journalPath: join(work, 'journal.jsonl'),
      state: foldEvents(options.events ?? []),
      env: { PATH: process.env.PATH ?? '' },
      ...options.extra,
    });
  return { agent, work, loaded, run };
}
