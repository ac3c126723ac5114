import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readJournal } from '@delta/journal';
import { cleanupTestResources, createTempAgent, defaultContextYaml, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

// Spec 002 section 8.1: a sub-agent is `delta run` started by a tool. Tools get no model key unless their
// definition says pass_model_credentials: true; a sub-agent without it must say so, naming that fix.

interface Message {
  role: string;
  content?: unknown;
}
type Request = { body: { messages?: Message[] } };

afterEach(cleanupTestResources);

/** The parent delegates; the child answers; the parent repeats what its tool printed. */
function script(request: Request) {
  const messages = request.body.messages ?? [];
  const task = messages.find((message) => message.role === 'user')?.content;
  if (task === 'say hi') return { content: 'hi from the child' };
  const result = messages.find((message) => message.role === 'tool');
  if (result === undefined) return { tool_calls: [{ id: 'call_sub', name: 'delegate', arguments: { task: 'say hi' } }] };
  return { content: `parent saw: ${String(result.content)}` };
}

async function parentWith(passCredentials: boolean) {
  const agent = await createTempAgent({
    agentYaml: {
      name: 'parent',
      llm: { model: 'm', max_retries: 0 },
      tools: [
        {
          name: 'delegate',
          description: 'Give a task to the child agent and get its answer',
          exec: 'delta run --agent ${AGENT_HOME}/child -w ${CWD}/sub -y -q --message=${task}',
          ...(passCredentials ? { pass_model_credentials: true } : {}),
        },
      ],
    },
    files: {
      'child/agent.yaml': 'name: child\nllm:\n  model: m\n  max_retries: 0\n',
      'child/system_prompt.md': 'You are the child.\n',
      'child/context.yaml': defaultContextYaml,
    },
  });
  return agent;
}

describe('a sub-agent started by a tool', () => {
  it('without pass_model_credentials fails naming the run that started it and the fix; with it, it answers', async () => {
    const server = await startFakeLlm({ script, apiKey: 'sk-parent' });
    const env = { DELTA_API_KEY: 'sk-parent', DELTA_BASE_URL: server.baseUrl };

    const refused = await parentWith(false);
    const first = await runDelta(['run', '--agent', refused, '-w', join(refused, 'w'), '-m', 'delegate it'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    const runId = readFileSync(join(refused, 'w', '.delta', 'LATEST'), 'utf8').trim();
    const journal = readJournal(join(refused, 'w', '.delta', runId, 'journal.jsonl'));
    const observation = journal.find((event) => event.type === 'ACTION_RESULT')?.observation_content ?? '';
    expect(observation).toContain(`this delta was started by a tool of run ${runId}`);
    expect(observation).toContain('Add pass_model_credentials: true to the tool that starts this sub-agent');
    expect(observation).not.toContain('sk-parent');

    const allowed = await parentWith(true);
    const second = await runDelta(['run', '--agent', allowed, '-w', join(allowed, 'w'), '-m', 'delegate it'], { env });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toContain('parent saw: hi from the child');
  });
});
