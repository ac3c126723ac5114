// The batch the batch, queue and scale benches run: a fake model that answers any number of runs at once
// with `steps` tool steps (two by default), then the answer (it reads the conversation it is sent, so any
// client that sends its conversation gets the same sequence), each answer after `delayMs` (0: at once), an
// agent whose tool is one echo (default sandbox), and a TASKS file of `tasks` tasks. Returns what a
// `delta batch` needs, and the model server to close.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeLlm } from '@delta/testkit';

function text(content) {
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

export async function prepareTwoStepBatch({ name, work, tasks, steps = 2, delayMs = 0 }) {
  const llm = await startFakeLlm({
    script: (request) => {
      const messages = request.body.messages;
      const tools = messages.filter((message) => message.role === 'tool').length;
      const delay = delayMs > 0 ? { delay_ms: delayMs } : {};
      if (tools < steps) return { tool_calls: [{ name: 'step', arguments: { n: String(tools + 1) } }], ...delay };
      return { content: `done: ${text(messages.find((message) => message.role === 'user')?.content)}`, ...delay };
    },
  });
  mkdirSync(work, { recursive: true });
  const agent = join(work, 'agent');
  mkdirSync(agent);
  writeFileSync(
    join(agent, 'agent.yaml'),
    `name: ${name}\nllm:\n  model: bench-model\n  max_retries: 0\nask_human: false\ntools:\n  - name: step\n    description: Do one step\n    exec: "echo -- step \${n}"\n`,
  );
  writeFileSync(join(agent, 'system_prompt.md'), 'Do the task.\n');
  writeFileSync(join(agent, 'context.yaml'), 'sources:\n  - type: file\n    path: "${AGENT_HOME}/system_prompt.md"\n  - type: journal\n');
  const tasksFile = join(work, 'tasks.jsonl');
  writeFileSync(
    tasksFile,
    `${Array.from({ length: tasks }, (_, index) => JSON.stringify({ id: `t${index + 1}`, message: `task ${index + 1}` })).join('\n')}\n`,
  );
  const env = { ...process.env, DELTA_API_KEY: 'bench', DELTA_BASE_URL: llm.baseUrl };
  return { llm, agent, tasksFile, env, tasks };
}
