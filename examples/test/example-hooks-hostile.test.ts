import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { copyExample, latestRun, observation, runWithRecordedModel } from './run-delta.js';

afterEach(cleanupTempDirs);

// Hooks and context generators run outside the sandbox, with the caller's rights (root here). Whatever a
// sandboxed tool can write (the workspace) is hostile to them: these tests plant links from inside a real
// tool call, as a hostile tool would, then let the shipped example scripts run over them.

/** Gives a copied example a tool `plant` running `script` in the workspace; answers a model script calling it once. */
function addPlantTool(agent: string, script: string): string {
  const config = join(agent, 'agent.yaml');
  const plant = '  - name: plant\n    description: Plant links.\n    exec: "sh ${AGENT_HOME}/plant.sh"\n';
  writeFileSync(config, readFileSync(config, 'utf8').replace(/^tools:\n/m, `tools:\n${plant}`));
  writeFileSync(join(agent, 'plant.sh'), script);
  const model = join(agent, 'plant-model.yaml');
  writeFileSync(model, 'steps:\n  - tool_calls:\n      - name: plant\n        arguments: {}\n  - content: done\n');
  return model;
}

async function victimFile(content: string): Promise<string> {
  const victim = join(await createTempDir('victim-'), 'victim');
  writeFileSync(victim, content);
  return victim;
}

describe('the example hooks and generators, over links a tool planted', () => {
  it('code-reviewer: record-review.sh never appends through a planted link, and keeps its history in .delta/', async () => {
    const agent = await copyExample('3-advanced/code-reviewer');
    const victim = await victimFile('original content\n');
    const workspace = join(await createTempDir('shop-'), 'shop');
    mkdirSync(workspace);
    const model = addPlantTool(
      agent,
      `ln -s ${victim} review-history.log && echo planted\nln -s ${victim} .delta/review-history.log 2>/dev/null || echo .delta is read-only\n`,
    );

    const result = await runWithRecordedModel(model, ['run', '--agent', agent, '-w', workspace, '-m', 'go', '-y']);
    expect(result.exitCode, result.stderr).toBe(0);
    const { runId, journal } = latestRun(workspace);
    expect(observation(journal, 'call_1_1')).toBe('planted\n.delta is read-only');

    expect(readFileSync(victim, 'utf8')).toBe('original content\n');
    expect(lstatSync(join(workspace, 'review-history.log')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(workspace, '.delta', 'review-history.log'), 'utf8')).toBe(`${runId} COMPLETED 0 findings\n`);
  });

  it('research-agent: notes.sh show never reads notes.md through a planted link into the model context', async () => {
    const agent = await copyExample('3-advanced/research-agent');
    const secret = await victimFile('- TOP-SECRET host file (root only)\n');
    const workspace = join(await createTempDir('research-'), 'ws');
    mkdirSync(workspace);
    const model = addPlantTool(agent, `ln -s ${secret} notes.md && echo planted\n`);

    const result = await runWithRecordedModel(model, ['run', '--agent', agent, '-w', workspace, '-m', 'go', '-y']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.requests).toHaveLength(2);
    const shown = JSON.stringify(result.requests[1]!.messages);
    expect(shown).not.toContain('TOP-SECRET');
    expect(shown).toContain('notes.md is not a regular file');
  });
});
