import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLatestRunId, readMetadata, runPaths } from '@delta/journal';
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

// A batch keeps a copy of each version of the agent it ran (content-addressed, in OUT/.batch/agents/), and a
// replay or a fork of one of its runs runs the version that run used, however the agent was edited since.
// The version shows in what the model sees: the tool's script prints it, and the system prompt says it.

type Message = { role: string; content: unknown };
const messagesOf = (request: RecordedRequest) => (request.body as { messages: Message[] }).messages;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({
    script: (request) => {
      const tool = messagesOf(request).findLast((message) => message.role === 'tool');
      if (tool === undefined) return { tool_calls: [{ name: 'stamp', arguments: {} }] };
      return { content: `Stamped: ${String(tool.content).trim()}` };
    },
  });
});
afterEach(() => cleanupTempDirs());
afterAll(() => llm.close());

const stampScript = (version: string) => ({ content: `#!/bin/sh\necho "stamped by version ${version}"\n`, mode: 0o755 });

describe('a batch keeps the agent versions it ran', () => {
  it('keeps each version in OUT/.batch/agents/, and replays and forks a run with its own version after the agent was edited', async () => {
    const agent = await createTempAgent({
      agentYaml: {
        name: 'versioned',
        llm: { model: 'fake-model', max_retries: 0 },
        tools: [{ name: 'stamp', description: 'Stamp the workspace', exec: 'sh ${AGENT_HOME}/tools/stamp.sh' }],
      },
      systemPrompt: 'You are prompt version A.',
      files: { 'tools/stamp.sh': stampScript('A'), 'notes/unrelated.txt': 'not part of the agent\n' },
    });
    const directory = await createTempDir();
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 't1', message: 'Stamp it' })}\n`);
    const out = join(directory, 'out');
    const env = modelEnv(llm);
    const batch = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out], { env });
    expect(batch.exitCode, batch.stderr).toBe(0);

    // One version kept: exactly the files that define it (its fingerprint), named by its fingerprint.
    const kept = readdirSync(join(out, '.batch', 'agents'));
    expect(kept).toHaveLength(1);
    const run = join(out, 't1', 'fake-model', '1');
    const fingerprint = readStartFingerprint(run);
    expect(kept[0]).toBe(fingerprint.sha256.slice(0, 16));
    const version = JSON.parse(readFileSync(join(out, '.batch', 'agents', kept[0]!, 'version.json'), 'utf8'));
    const copy = join(out, '.batch', 'agents', kept[0]!, version.home);
    expect(readFileSync(join(copy, 'tools', 'stamp.sh'), 'utf8')).toContain('version A');
    expect(existsSync(join(copy, 'notes'))).toBe(false);

    // The agent is edited: its script and its prompt say B now.
    writeFileSync(join(agent, 'tools', 'stamp.sh'), stampScript('B').content);
    writeFileSync(join(agent, 'system_prompt.md'), 'You are prompt version B.');

    const replay = await runDelta(['replay', '-w', run], { env });
    expect(replay.stdout).toContain('identical: 2 model calls');
    expect(replay.exitCode, replay.stdout).toBe(0);
    expect(replay.stdout).toContain("agent: the same version as the recorded run's");
    expect(replay.stdout).toContain(`ran the version the run used, kept by its batch in ${copy}`);
    const replayPlace = join(out, '.batch', 'replays', 'R001');
    expect(replay.stdout).toContain(`in ${replayPlace} (COMPLETED)`);

    const before = llm.requests.length;
    const fork = await runDelta(['fork', '-w', run, '--at', '1', '-q'], { env });
    expect(fork.exitCode, fork.stderr).toBe(0);
    expect(fork.stdout.trim()).toBe('Stamped: stamped by version A');
    expect(fork.stderr).toContain(`in ${join(out, '.batch', 'forks', 'F001')}`);
    // The fork's live request is made from version A: its prompt, and what its tool printed.
    const live = llm.requests.slice(before);
    expect(live).toHaveLength(1);
    expect(JSON.stringify(messagesOf(live[0]!))).toContain('prompt version A');
    expect(JSON.stringify(messagesOf(live[0]!))).not.toContain('version B');
    const forkDir = join(out, '.batch', 'forks', 'F001');
    expect(readMetadata(runPaths(forkDir, readLatestRunId(forkDir)!).metadata).agent_home).toBe(copy);
    expect(readdirSync(agent).filter((name) => ['replays', 'forks', 'workspaces'].includes(name))).toEqual([]);

    // --agent still names the directory to use as it is: the edited version, which diverges.
    const edited = await runDelta(['replay', '-w', run, '--agent', agent], { env });
    expect(edited.exitCode).toBe(1);
    expect(edited.stdout).toContain("agent: differs from the recorded run's");

    // The edited agent run as a condition of its own is a second version, kept beside the first.
    const second = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--condition', 'b'], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(readdirSync(join(out, '.batch', 'agents')).sort()).toHaveLength(2);
    // A run of the version the agent holds now replays from the agent directory itself.
    const current = await runDelta(['replay', '-w', join(out, 't1', 'fake-model+b', '1')], { env });
    expect(current.exitCode, current.stdout).toBe(0);
    expect(current.stdout).not.toContain('kept by its batch');
  });
});

function readStartFingerprint(run: string): { sha256: string } {
  const journal = readFileSync(runPaths(run, 'run-1').journal, 'utf8').split('\n');
  return JSON.parse(journal.find((line) => line.includes('"ENGINE_START"'))!).agent_fingerprint;
}
