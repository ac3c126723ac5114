import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '@delta/journal';
import { cleanupTestResources, createTempAgent, defaultContextYaml, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

// Issue 46, item 14: a sub-agent whose workspace lies in the run's private /tmp loses it when the run
// ends; the parent's model is told so in the call's observation, whether the sub-agent succeeded or not.

interface Message {
  role: string;
  content?: unknown;
}
type Request = { body: { messages?: Message[] } };

afterEach(cleanupTestResources);

function script(request: Request) {
  const messages = request.body.messages ?? [];
  const task = messages.find((message) => message.role === 'user')?.content;
  if (task === 'say hi') return { content: 'hi from the child' };
  if (task === 'fail') return { error: { status: 400, message: 'the child cannot' } };
  const result = messages.find((message) => message.role === 'tool');
  if (result === undefined) {
    return { tool_calls: [{ id: 'call_sub', name: 'delegate', arguments: { task: String(task).replace(/^delegate: /, '') } }] };
  }
  return { content: 'done' };
}

async function parentWith(workspace: string) {
  return createTempAgent({
    agentYaml: {
      name: 'parent',
      llm: { model: 'm', max_retries: 0 },
      tools: [
        {
          name: 'delegate',
          description: 'Give a task to the child agent',
          exec: `delta run --agent \${AGENT_HOME}/child -w ${workspace} -y -q --message=\${task}`,
          pass_model_credentials: true,
        },
      ],
    },
    files: {
      'child/agent.yaml': 'name: child\nllm:\n  model: m\n  max_retries: 0\n',
      'child/system_prompt.md': 'You are the child.\n',
      'child/context.yaml': defaultContextYaml,
    },
  });
}

async function observationOf(agent: string, task: string, env: Record<string, string>) {
  const run = await runDelta(['run', '--agent', agent, '-w', join(agent, 'w'), '-m', `delegate: ${task}`, '--sandbox', 'workspace-write'], {
    env,
  });
  expect(run.exitCode, run.stderr).toBe(0);
  const runId = readFileSync(join(agent, 'w', '.delta', 'LATEST'), 'utf8').trim();
  const journal = readJournal(join(agent, 'w', '.delta', runId, 'journal.jsonl'));
  const result = journal.find((event) => event.type === 'ACTION_RESULT');
  return {
    observation: result?.type === 'ACTION_RESULT' ? result.observation_content : '',
    status: result?.type === 'ACTION_RESULT' ? result.status : undefined,
  };
}

describe('a sub-agent whose workspace is in the private /tmp of the run', () => {
  it('is named in the observation with the fix, whether the sub-agent succeeded or failed; a workspace under ${CWD} is not', async () => {
    const server = await startFakeLlm({ script, apiKey: 'sk-parent' });
    const env = { DELTA_API_KEY: 'sk-parent', DELTA_BASE_URL: server.baseUrl };
    const inTmp = await parentWith('/tmp/child-job');

    const succeeded = await observationOf(inTmp, 'say hi', env);
    expect(succeeded.status).toBe('SUCCESS');
    expect(succeeded.observation, succeeded.observation).toContain('hi from the child');
    expect(succeeded.observation).toContain(
      "Note: this call ran a sub-agent whose workspace, /tmp/child-job, is in this run's private /tmp: it is deleted when the run ends",
    );
    expect(succeeded.observation).toContain('-w ${CWD}/child-job');

    const failed = await observationOf(inTmp, 'fail', env);
    expect(failed.status).toBe('FAILED');
    expect(failed.observation).toContain('whose workspace, /tmp/child-job, is in this run');

    const underWorkspace = await observationOf(await parentWith('${CWD}/child-job'), 'say hi', env);
    expect(underWorkspace.observation).toContain('hi from the child');
    expect(underWorkspace.observation).not.toContain('private /tmp');
  });
});
