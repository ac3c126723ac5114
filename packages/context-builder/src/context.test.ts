import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyRunState, foldEvents, MISSING_RESULT, type JournalEvent } from '@delta/journal';
import { messagesOf } from '../test/journal-events.js';
import { buildContextMessages, loadContextManifest } from './index.js';
import { DEFAULT_CONTEXT_YAML } from './manifest.js';

const dirs: string[] = [];
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-context-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

let seq = 0;
const t = 'T';
const user = (content: string): JournalEvent => ({ seq: ++seq, timestamp: t, type: 'USER_MESSAGE', content });
const thought = (iteration: number, content: string | null, calls: string[] = []): JournalEvent => ({
  seq: ++seq,
  timestamp: t,
  type: 'THOUGHT',
  iteration,
  content,
  llm_invocation_ref: `inv${iteration}`,
  tool_calls: calls.map((id) => ({ id, name: 'tool', arguments: `{"id":"${id}"}` })),
});
const result = (iteration: number, id: string, text: string): JournalEvent => ({
  seq: ++seq,
  timestamp: t,
  type: 'ACTION_RESULT',
  iteration,
  action_id: id,
  tool_name: 'tool',
  status: 'SUCCESS',
  observation_content: text,
  exit_code: 0,
});

describe('journalToMessages', () => {
  it('rebuilds the conversation with one tool message per call, in call order', () => {
    const events = [user('task'), thought(1, 'two calls', ['a', 'b']), result(1, 'b', 'B'), result(1, 'a', 'A'), thought(2, 'done')];
    expect(messagesOf(events)).toEqual([
      { role: 'user', content: 'task' },
      {
        role: 'assistant',
        content: 'two calls',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'tool', arguments: '{"id":"a"}' } },
          { id: 'b', type: 'function', function: { name: 'tool', arguments: '{"id":"b"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'assistant', content: 'done' },
    ]);
  });

  it('never puts a user message between a tool call and its result, and fills a missing result', () => {
    const events = [user('task'), thought(1, null, ['a', 'b']), result(1, 'a', 'A'), user('later')];
    expect(messagesOf(events).map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(messagesOf(events)[3]).toEqual({ role: 'tool', tool_call_id: 'b', content: MISSING_RESULT });
  });

  it('keeps the last N iterations and the initial task, never separating calls from results', () => {
    const events = [user('task')];
    for (let iteration = 1; iteration <= 5; iteration += 1) {
      events.push(thought(iteration, `i${iteration}`, [`c${iteration}`]), result(iteration, `c${iteration}`, `r${iteration}`));
    }
    events.push(user('follow-up'), thought(6, 'i6'));
    const messages = messagesOf(events, { maxIterations: 2 });
    expect(messages).toEqual([
      { role: 'user', content: 'task' },
      expect.objectContaining({ role: 'assistant', content: 'i5' }),
      { role: 'tool', tool_call_id: 'c5', content: 'r5' },
      { role: 'user', content: 'follow-up' },
      { role: 'assistant', content: 'i6' },
    ]);
    expect(messagesOf(events, { maxIterations: 100 })).toEqual(messagesOf(events));
  });
});

describe('loadContextManifest', () => {
  it('explains how to create a missing context.yaml', () => {
    const agent = temp();
    expect(() => loadContextManifest(agent)).toThrow(
      /context\.yaml not found in .*Quick fix - create .*context\.yaml with the default content/s,
    );
  });

  it('names the field of a bad source and warns about unknown keys', () => {
    const agent = temp();
    writeFileSync(join(agent, 'context.yaml'), 'sources:\n  - type: file\n    id: a\n  - type: journal\n    max_iteration: 3\n');
    expect(() => loadContextManifest(agent)).toThrow(/context\.yaml:2:5 sources\[0\]\.path: is required but missing/);
    writeFileSync(join(agent, 'context.yaml'), 'sources:\n  - type: journal\n    note: recent only\n');
    const loaded = loadContextManifest(agent);
    expect(loaded.warnings.map((warning) => warning.field)).toEqual(['sources[0].note']);
    writeFileSync(join(agent, 'context.yaml'), 'sources:\n  - type: journal\n    max_iteration: 3\n');
    expect(() => loadContextManifest(agent)).toThrow(
      /context\.yaml:3:5 sources\[0\]\.max_iteration: unknown key "max_iteration": did you mean "max_iterations"\?/,
    );
    writeFileSync(join(agent, 'context.yaml'), "sources:\n  - type: file\n    path: '${HOME}/x'\n");
    expect(() => loadContextManifest(agent)).toThrow(/sources\[0\]\.path: unknown variable \$\{HOME\}/);
  });

  it('checks a file source that does not depend on the workspace when it loads, not in the run', () => {
    const agent = temp();
    mkdirSync(join(agent, 'notes'));
    const write = (path: string, extra = '') =>
      writeFileSync(join(agent, 'context.yaml'), `sources:\n  - type: journal\n  - type: file\n    path: '${path}'\n${extra}`);
    write('${AGENT_HOME}/nope.md');
    expect(() => loadContextManifest(agent)).toThrow(
      new RegExp(`context\\.yaml:4:11 sources\\[1\\]\\.path: ${agent}/nope\\.md does not exist`),
    );
    write('${AGENT_HOME}/notes');
    expect(() => loadContextManifest(agent)).toThrow(/sources\[1\]\.path: .*notes is not a file/);
    write(join(agent, 'absent.md'));
    expect(() => loadContextManifest(agent)).toThrow(/absent\.md does not exist/);
    // Skipped sources, and paths that depend on the workspace, wait for the run.
    write('${AGENT_HOME}/nope.md', '    on_missing: skip\n');
    expect(loadContextManifest(agent).warnings).toEqual([]);
    write('${CWD}/DELTA.md');
    expect(loadContextManifest(agent).warnings).toEqual([]);
  });

  it('warns about a second journal source and about two sources with one id', () => {
    const agent = temp();
    writeFileSync(join(agent, 'a.md'), 'a');
    writeFileSync(
      join(agent, 'context.yaml'),
      "sources:\n  - type: file\n    id: notes\n    path: '${AGENT_HOME}/a.md'\n  - type: journal\n    id: notes\n  - type: journal\n",
    );
    const { warnings } = loadContextManifest(agent);
    expect(warnings.map((warning) => [warning.field, warning.line, warning.message])).toEqual([
      ['sources[2]', 7, expect.stringContaining('a second journal source (the first is sources[1])')],
      ['sources[1].id', 6, expect.stringContaining('id "notes" is also the id of sources[0]')],
    ]);
  });
});

describe('buildContextMessages', () => {
  it('composes file, skipped file, computed_file and journal sources in order', async () => {
    const agent = temp();
    const work = temp();
    writeFileSync(join(agent, 'system_prompt.md'), 'You are a test.');
    writeFileSync(
      join(agent, 'gen.sh'),
      'mkdir -p .delta/ctx && printf "run=%s cwd=%s home=%s journal=%s" "$DELTA_RUN_ID" "$DELTA_CWD" "$DELTA_AGENT_HOME" "$JOURNAL_PATH" > .delta/ctx/summary.md',
    );
    writeFileSync(
      join(agent, 'context.yaml'),
      `${DEFAULT_CONTEXT_YAML}  - type: computed_file\n    id: summary\n    generator:\n      command: [sh, '\${AGENT_HOME}/gen.sh']\n    output_path: '\${CWD}/.delta/ctx/summary.md'\n`,
    );
    const { manifest, file } = loadContextManifest(agent);
    const record = join(work, 'record');
    const messages = await buildContextMessages({
      manifest,
      manifestFile: file,
      agentHome: agent,
      cwd: work,
      runId: 'R1',
      journalPath: '/j.jsonl',
      state: foldEvents([user('hello')]),
      env: { PATH: process.env.PATH ?? '' },
      recordDirectory: () => record,
    });
    expect(messages).toEqual([
      { role: 'system', content: '# Context Block: system_prompt\n\nYou are a test.' },
      { role: 'user', content: 'hello' },
      { role: 'system', content: `# Context Block: summary\n\nrun=R1 cwd=${work} home=${agent} journal=/j.jsonl` },
    ]);
    expect(readFileSync(join(record, 'exit_code.txt'), 'utf8')).toBe('0\n');
    expect(JSON.parse(readFileSync(join(record, 'command.txt'), 'utf8'))).toEqual(['sh', join(agent, 'gen.sh')]);
  });

  it('fails with the generator stderr, or skips it with on_missing: skip', async () => {
    const agent = temp();
    const work = temp();
    const yaml = (onMissing: string) =>
      `sources:\n  - type: computed_file\n    id: broken\n    generator:\n      command: [sh, -c, 'echo oh no >&2; exit 4']\n    output_path: '\${CWD}/out.md'\n${onMissing}`;
    writeFileSync(join(agent, 'context.yaml'), yaml(''));
    const base = {
      agentHome: agent,
      cwd: work,
      runId: 'R',
      journalPath: 'j',
      state: emptyRunState(),
      env: { PATH: process.env.PATH ?? '' },
    };
    const first = loadContextManifest(agent);
    await expect(buildContextMessages({ ...base, manifest: first.manifest, manifestFile: first.file })).rejects.toThrow(
      /context source "broken" \(computed_file\): the generator exited with 4\nstderr:\noh no/,
    );
    writeFileSync(join(agent, 'context.yaml'), yaml('    on_missing: skip\n'));
    const second = loadContextManifest(agent);
    await expect(buildContextMessages({ ...base, manifest: second.manifest, manifestFile: second.file })).resolves.toEqual([]);
  });

  it('reports a missing file source with its field and fix', async () => {
    const agent = temp();
    mkdirSync(join(agent, 'x'));
    writeFileSync(join(agent, 'context.yaml'), "sources:\n  - type: file\n    path: '${CWD}/nope.md'\n");
    const loaded = loadContextManifest(agent);
    await expect(
      buildContextMessages({
        manifest: loaded.manifest,
        manifestFile: loaded.file,
        agentHome: agent,
        cwd: agent,
        runId: 'R',
        journalPath: 'j',
        state: emptyRunState(),
        env: {},
      }),
    ).rejects.toThrow(/context source "file_0" \(file\): .*nope\.md does not exist/);
  });
});
