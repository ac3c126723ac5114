import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentFingerprint, compareFingerprints, loadAgent } from '@delta/engine';
import { cleanupTempDirs, createTempDir, defaultContextYaml, writeFiles } from '@delta/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { agentVersionDirectory, keepAgentVersion, keptAgentHome } from './agent-versions.js';

afterAll(() => cleanupTempDirs());

describe('the agent versions a batch keeps', () => {
  it('copies the files that define a version, imports above the agent included, so the copy loads as the same version', async () => {
    // An agent inside a git repository, importing a tools file of the repository from above its directory.
    const repository = await createTempDir();
    mkdirSync(join(repository, '.git'));
    await writeFiles(repository, {
      'shared/tools.yaml': 'tools:\n  - name: shout\n    exec: sh ${AGENT_HOME}/tools/shout.sh\n',
      'agents/one/agent.yaml': 'name: one\nllm:\n  model: m\nimports: [../../shared/tools.yaml]\n',
      'agents/one/system_prompt.md': 'Be brief.',
      'agents/one/context.yaml': defaultContextYaml,
      'agents/one/tools/shout.sh': 'echo HEY\n',
      'agents/one/.env': 'DELTA_API_KEY=sk-never-copied\n',
      'agents/one/workspaces/W001/big.txt': 'a workspace\n',
    });
    const home = join(repository, 'agents', 'one');
    const fingerprint = agentFingerprint(loadAgent(home));
    expect(fingerprint.files.map((file) => file.path)).toContain(join('..', '..', 'shared', 'tools.yaml'));
    const out = await createTempDir();

    keepAgentVersion(out, home, fingerprint);
    const kept = keptAgentHome(out, fingerprint)!;
    expect(kept).toBe(join(agentVersionDirectory(out, fingerprint), 'agents', 'one'));
    expect(readdirSync(kept).sort()).toEqual(['agent.yaml', 'context.yaml', 'system_prompt.md', 'tools']);
    const copy = loadAgent(kept);
    expect(compareFingerprints(fingerprint, agentFingerprint(copy)).same).toBe(true);
    expect(copy.tools.map((tool) => tool.name)).toContain('shout');

    // Kept once: an edit of the agent later does not touch the copy of this version.
    writeFileSync(join(home, 'tools', 'shout.sh'), 'echo CHANGED\n');
    keepAgentVersion(out, home, fingerprint);
    expect(compareFingerprints(fingerprint, agentFingerprint(loadAgent(kept))).same).toBe(true);
    // The edited agent is another version, and none was kept for it.
    expect(keptAgentHome(out, agentFingerprint(loadAgent(home)))).toBeUndefined();
  });

  it('keeps no copy whose files no longer hold the version (edited between the fingerprint and the copy)', async () => {
    const home = await createTempDir();
    await writeFiles(home, {
      'agent.yaml': 'name: two\nllm:\n  model: m\n',
      'system_prompt.md': 'First.',
      'context.yaml': defaultContextYaml,
    });
    const fingerprint = agentFingerprint(loadAgent(home));
    writeFileSync(join(home, 'system_prompt.md'), 'Second.');
    const out = await createTempDir();
    keepAgentVersion(out, home, fingerprint);
    expect(keptAgentHome(out, fingerprint)).toBeUndefined();
    expect(readdirSync(join(out, '.batch', 'agents'))).toEqual([]);
  });
});
