import { compareFingerprints, describeFingerprintChanges, shortFingerprint } from '@delta/engine';
import type { AgentFingerprint, EngineStartEvent } from '@delta/journal';
import { describe, expect, it } from 'vitest';
import { agentVersionLines, diffAgentLine, replayAgentLine } from './agent-version.js';

const tools = { compareFingerprints, describeFingerprintChanges, shortFingerprint };
const fingerprint = (sha256: string, files: [string, string][]): AgentFingerprint => ({
  sha256,
  files: files.map(([path, hash]) => ({ path, sha256: hash })),
});
const a = fingerprint('a'.repeat(64), [
  ['agent.yaml', '1'.repeat(64)],
  ['system_prompt.md', '2'.repeat(64)],
]);
const b = fingerprint('b'.repeat(64), [
  ['agent.yaml', '1'.repeat(64)],
  ['system_prompt.md', '3'.repeat(64)],
  ['tools/new.sh', '4'.repeat(64)],
]);
const start = (agent_fingerprint?: AgentFingerprint) =>
  ({
    seq: 1,
    timestamp: '',
    type: 'ENGINE_START',
    run_id: 'r',
    agent_home: '/a',
    work_dir: '/w',
    ...(agent_fingerprint ? { agent_fingerprint } : {}),
  }) as EngineStartEvent;

describe('the wording of agent versions', () => {
  it('diff names each file that differs, or says the agents are the same, or that one was not recorded', () => {
    expect(diffAgentLine(compareFingerprints(a, b), tools)).toBe(
      "agents differ: system_prompt.md changed, tools/new.sh added (A's agent -> B's)",
    );
    expect(diffAgentLine(compareFingerprints(a, a), tools)).toBe('agents: the same version');
    expect(diffAgentLine(undefined, tools)).toBe("agents: not compared (a run's engine did not record its agent's version)");
  });

  it("replay names each file that differs from the recorded run's agent", () => {
    expect(replayAgentLine(compareFingerprints(b, a), tools)).toBe(
      "agent: differs from the recorded run's: system_prompt.md changed, tools/new.sh removed",
    );
    expect(replayAgentLine(compareFingerprints(a, a), tools)).toBe("agent: the same version as the recorded run's");
  });

  it('show run gives the short hash and file count, each later version met, and the files when verbose', () => {
    expect(agentVersionLines([start(a)], false, tools)).toEqual(['agent version: aaaaaaaaaaaa (2 files)']);
    expect(agentVersionLines([start(a), start(a), start(b)], true, tools)).toEqual([
      'agent version: aaaaaaaaaaaa (2 files)',
      '  engine start 3 found another version: bbbbbbbbbbbb (3 files), system_prompt.md changed, tools/new.sh added',
      `  ${'1'.repeat(64)}  agent.yaml`,
      `  ${'3'.repeat(64)}  system_prompt.md`,
      `  ${'4'.repeat(64)}  tools/new.sh`,
    ]);
    expect(agentVersionLines([start()], false, tools)).toEqual([
      "agent version: not recorded (the run's engine predates agent fingerprints)",
    ]);
  });
});
