import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { copyExample, latestRun, observation, pathWithoutDelta, runProcess, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

const TASK = 'Make an agent that writes haiku, and have it write one about the sea';
const HAIKU = 'Grey waves fold and break\nsalt wind carries gulls inland\nthe tide keeps its time\n';

describe('examples/3-advanced/delta-agent-generator', () => {
  it('writes an agent, checks it and runs it as a sub-agent in ./job with plain `delta`, which is not on the user PATH', async () => {
    const agent = await copyExample('3-advanced/delta-agent-generator');
    const path = pathWithoutDelta();
    expect((await runProcess('sh', ['-c', 'command -v delta || echo none'], { env: { PATH: path } })).stdout).toBe('none\n');

    const result = await runScripted(join(agent, 'fake-llm.yaml'), ['run', '--agent', agent, '-m', TASK, '-y'], { env: { PATH: path } });
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('the haiku is in job/haiku.txt');

    const workspace = join(agent, 'workspaces', 'W001');
    const parent = latestRun(workspace);
    expect(parent.metadata).toMatchObject({ status: 'COMPLETED', iterations: 5 });
    // The generated agent exists and loaded.
    expect(existsSync(join(workspace, 'agents/haiku-writer/agent.yaml'))).toBe(true);
    expect(observation(parent.journal, 'call_2_1')).toContain('- name: write_file');
    // The sub-agent ran with the parent's credentials, answered on stdout, and wrote into ./job.
    expect(observation(parent.journal, 'call_3_1')).toContain(HAIKU.trim());
    expect(readFileSync(join(workspace, 'job', 'haiku.txt'), 'utf8')).toBe(HAIKU);
    expect(observation(parent.journal, 'call_6_1')).toBe(HAIKU.trim());

    // The sub-agent's control plane is inside ./job, a run of its own, and the parent's is not touched.
    // The sub-agent ran inside the parent's sandbox (bubblewrap does not nest): it says so, and warns of nothing.
    const child = latestRun(join(workspace, 'job'), 'off');
    if (!process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE) {
      expect(child.journal[0]).toMatchObject({
        sandbox: { note: 'inside the workspace-write sandbox of the run whose tool started this engine' },
      });
    }
    expect(child.runId).not.toBe(parent.runId);
    expect(child.metadata).toMatchObject({ status: 'COMPLETED', iterations: 2, agent_name: 'haiku-writer' });
    expect(child.journal.map((event) => event.type)).toEqual([
      'ENGINE_START',
      'USER_MESSAGE',
      'THOUGHT',
      'ACTION_REQUEST',
      'ACTION_RESULT',
      'THOUGHT',
      'ENGINE_END',
    ]);
    expect(child.journal[1]).toMatchObject({ content: 'Write a haiku about the sea to haiku.txt' });
    expect(existsSync(join(workspace, '.delta', child.runId))).toBe(false);
    expect(observation(parent.journal, 'call_6_2')).toContain(`job/.delta/${child.runId}/journal.jsonl`);
    // The key reached the sub-agent through the environment only: not in the command line that was logged.
    const command = readFileSync(join(parent.runDir, 'io/tool_executions/call_3_1/command.txt'), 'utf8');
    expect(command).toMatch(/^delta run --agent\\=agents\/haiku-writer --work-dir\\=job -y '--message=/);
    expect(command).not.toContain('fake-key');
  });

  it('without pass_model_credentials the sub-agent gets no API key, and says so', async () => {
    const agent = await copyExample('3-advanced/delta-agent-generator');
    const agentYaml = join(agent, 'agent.yaml');
    writeFileSync(agentYaml, readFileSync(agentYaml, 'utf8').replace('    pass_model_credentials: true\n', ''));
    const script = join(agent, 'fake-llm.yaml');
    // The generator's own steps only: the sub-agent never reaches the model.
    const steps = readFileSync(script, 'utf8').split('  # 4-5.')[0]!;
    writeFileSync(script, `${steps}  - content: The sub-agent could not start.\n`);

    const result = await runScripted(script, ['run', '--agent', agent, '-m', TASK, '-y'], { env: { PATH: pathWithoutDelta() } });
    expect(result.stderr).toContain('ended: COMPLETED');
    const { journal } = latestRun(join(agent, 'workspaces', 'W001'));
    const answer = observation(journal, 'call_3_1');
    expect(answer).toMatch(/API key/i);
    expect(answer).toContain('[exit code: 2]');
  });
});
