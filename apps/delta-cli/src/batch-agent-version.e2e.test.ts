import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMetadata, runPaths } from '@delta/journal';
import {
  cleanupTempDirs,
  createTempAgent,
  createTempDir,
  type FakeLlm,
  type RecordedRequest,
  startFakeLlm,
  modelEnv,
} from '@delta/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

// A batch pins its agent's version: the same command on an edited agent is refused, and no run ever gets
// requests made from two versions. The version shows in every request: the system prompt says it, and the
// `note` tool's script prints it into the observation the next request carries.

type Message = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest) => (request.body as { messages: Message[] }).messages;
const text = (message: Message | undefined) =>
  typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');

/** The versions of the prompt (or of the script) a request carries: `A`, `B`. */
function versionsIn(request: RecordedRequest, kind: 'prompt' | 'script' = 'prompt'): Set<string> {
  const versions = new Set<string>();
  for (const message of messagesOf(request)) {
    for (const match of text(message).matchAll(new RegExp(`\\b${kind} version ([A-Z])\\b`, 'g'))) versions.add(match[1]!);
  }
  return versions;
}

let onRequest: (request: RecordedRequest) => void = () => {};
let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({
    script: (request) => {
      onRequest(request);
      const messages = messagesOf(request);
      const task = text(messages.find((message) => message.role === 'user'));
      const answered = messages.some((message) => message.role === 'tool');
      if (answered) return { content: 'done' };
      if (task.includes('ask')) return { tool_calls: [{ name: 'ask_human', arguments: { prompt: 'Which one?' } }] };
      return { tool_calls: [{ name: 'note', arguments: { text: task } }] };
    },
  });
});
afterEach(async () => {
  onRequest = () => {};
  await cleanupTempDirs();
});
afterAll(() => llm.close());

const noteScript = (version: string) => ({ content: `#!/bin/sh\necho "noted by script version ${version}: $2"\n`, mode: 0o755 });

async function setup() {
  const agent = await createTempAgent({
    agentYaml: {
      name: 'versioned',
      llm: { model: 'fake-model', max_retries: 0 },
      sandbox: { mode: 'off' },
      tools: [{ name: 'note', description: 'Note a line', exec: '${AGENT_HOME}/tools/note.sh -- ${text}' }],
    },
    systemPrompt: 'You are prompt version A.\n',
    files: { 'tools/note.sh': noteScript('A'), 'notes/unnamed.md': 'no tool names this file\n' },
  });
  const directory = await createTempDir();
  const tasksFile = join(directory, 'tasks.jsonl');
  writeFileSync(
    tasksFile,
    `${JSON.stringify({ id: 'task-1', message: 'note this' })}\n${JSON.stringify({ id: 'task-2', message: 'ask first' })}\n`,
  );
  const out = join(directory, 'out');
  const env = modelEnv(llm);
  const batch = (...extra: string[]) =>
    runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--concurrency', '1', '--json', ...extra], { env });
  return { agent, out, batch };
}

const runOf = (out: string, task: string, model = 'fake-model') => runPaths(join(out, task, model, '1'), 'run-1');

/** Every request carries one version of the prompt, and at most one of the script (none before the tool ran). */
function expectNoRequestFromTwoVersions(requests: readonly RecordedRequest[]): void {
  for (const request of requests) {
    expect(versionsIn(request, 'prompt').size, JSON.stringify(messagesOf(request))).toBe(1);
    expect(versionsIn(request, 'script').size, JSON.stringify(messagesOf(request))).toBeLessThanOrEqual(1);
  }
}

describe('delta batch on an edited agent', () => {
  it('refuses the same command after system_prompt.md changed (BATCH_CHANGED, exit 2); --condition runs the new version apart', async () => {
    const { agent, out, batch } = await setup();
    const before = llm.requests.length;
    const first = await batch();
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(101); // task-2 waits for an answer
    const sentByFirst = llm.requests.length;
    expect(sentByFirst - before).toBe(3);
    const waiting = runOf(out, 'task-2');
    expect(readMetadata(waiting.metadata).status).toBe('WAITING_FOR_INPUT');

    // Edit the prompt, and answer task-2: the batch would continue it now.
    writeFileSync(join(agent, 'system_prompt.md'), 'You are prompt version B.\n');
    writeFileSync(join(waiting.interactionDir, 'response.txt'), 'the first\n');
    const journalBefore = readFileSync(waiting.journal, 'utf8');

    // -v: the error's code too.
    const refused = await batch('-v');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Error code: BATCH_CHANGED');
    expect(refused.stderr).toContain('system_prompt.md changed');
    expect(refused.stderr).toContain('--condition NAME');
    expect(llm.requests.length).toBe(sentByFirst);
    expect(readFileSync(waiting.journal, 'utf8')).toBe(journalBefore);

    // The new version as a condition of its own: its runs beside the first's, which are left as they are.
    const second = await batch('--condition', 'B');
    expect(second.stderr).toBe('');
    expect(second.exitCode).toBe(101);
    expect(readFileSync(waiting.journal, 'utf8')).toBe(journalBefore);
    expect(readMetadata(runOf(out, 'task-1', 'fake-model+B').metadata).status).toBe('COMPLETED');
    const sentBySecond = llm.requests.slice(sentByFirst);
    expect(sentBySecond).toHaveLength(3);
    for (const request of sentBySecond) expect([...versionsIn(request)]).toEqual(['B']);
    for (const request of llm.requests.slice(before, sentByFirst)) expect([...versionsIn(request)]).toEqual(['A']);
    expectNoRequestFromTwoVersions(llm.requests.slice(before));

    const definition = JSON.parse(readFileSync(join(out, '.batch', 'definition.json'), 'utf8'));
    expect(definition.conditions.map((condition: { name: string }) => condition.name)).toEqual(['B']);
    const promptHash = (fingerprint: { files: { path: string; sha256: string }[] }) =>
      fingerprint.files.find((file) => file.path === 'system_prompt.md')?.sha256;
    expect(promptHash(definition.agent_fingerprint)).not.toBe(promptHash(definition.conditions[0].agent_fingerprint));

    // The report and the batch page show the two versions as two groups.
    const report = await runDelta(['report', out, '--json']);
    expect(report.exitCode).toBe(0);
    expect(JSON.parse(report.stdout).by_model.map((group: { name: string }) => group.name)).toEqual(['fake-model', 'fake-model+B']);
    const view = await runDelta(['view', out]);
    expect(view.exitCode).toBe(0);
    const page = readFileSync(join(out, 'index.html'), 'utf8');
    expect(page).toContain('fake-model+B');

    // Without --condition the batch's first version is asked for, and the agent is not it.
    const again = await batch('-v');
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('Error code: BATCH_CHANGED');
    expect(again.stderr).toContain('system_prompt.md changed');
  });

  it('refuses the same command after a script a tool names changed, and resumes once it is restored', async () => {
    const { agent, out, batch } = await setup();
    const before = llm.requests.length;
    expect((await batch()).exitCode).toBe(101);
    const sentByFirst = llm.requests.length;
    const waiting = runOf(out, 'task-2');
    writeFileSync(join(waiting.interactionDir, 'response.txt'), 'the first\n');

    // A file no tool names is not part of the agent.
    writeFileSync(join(agent, 'notes/unnamed.md'), 'edited\n');
    writeFileSync(join(agent, 'tools/note.sh'), noteScript('B').content);
    // -v: the error's code too.
    const refused = await batch('-v');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('Error code: BATCH_CHANGED');
    expect(refused.stderr).toContain('tools/note.sh changed');
    expect(refused.stderr).not.toContain('unnamed.md');
    expect(llm.requests.length).toBe(sentByFirst);

    writeFileSync(join(agent, 'tools/note.sh'), noteScript('A').content);
    const resumed = await batch();
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    expect(readMetadata(waiting.metadata).status).toBe('COMPLETED');
    expectNoRequestFromTwoVersions(llm.requests.slice(before));
  });

  it('an edit while the batch runs stops the run before its next request and leaves the later runs unstarted', async () => {
    const { agent, batch } = await setup();
    const before = llm.requests.length;
    let seen = 0;
    onRequest = () => {
      // task-1's first request: the prompt changes while its tool call is still to run.
      seen += 1;
      if (seen === 1) writeFileSync(join(agent, 'system_prompt.md'), 'You are prompt version B.\n');
    };
    const result = await batch();
    expect(result.exitCode).toBe(1);
    const ends = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((event) => event.type === 'run_end');
    expect(ends.map((end) => [(end.key as { task: string }).task, end.status])).toEqual([
      ['task-1', 'INTERRUPTED'],
      ['task-2', 'RUNNING'],
    ]);
    expect(String(ends[0]!.reason)).toContain("the agent's files changed while the run was going (system_prompt.md changed)");
    expect(ends[1]!.errorCode).toBe('BATCH_CHANGED');
    expect(llm.requests.length - before).toBe(1);
    expectNoRequestFromTwoVersions(llm.requests.slice(before));
  });
});
