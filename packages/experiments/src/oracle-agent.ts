import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type ChatCompletion, type LoadedAgent, loadAgent, type ModelClient } from '@delta/engine';
import { batchControlDirectory } from './batch-layout.js';
import type { Task } from './dataset.js';

/** The oracle's "model" name: its runs are `OUT/<task>/oracle/1/`. */
export const ORACLE = 'oracle';
/** The oracle's one tool. */
export const ORACLE_TOOL = 'solve';
/** How long solve.sh may run when the task gives no `timeout_sec` (Harbor's agent default). */
export const ORACLE_DEFAULT_TIMEOUT_SEC = 600;

/** Where the oracle agent of a task is written: `OUT/.batch/oracle/<task>/` (task ids cannot start with `.`). */
export function oracleAgentDirectory(out: string, task: string): string {
  return join(batchControlDirectory(out), ORACLE, task);
}

/**
 * Writes the task's oracle agent, a plain agent directory anyone can read: agent.yaml with one tool, `solve`,
 * that runs `bash solution/solve.sh` of the directory, and a copy of the task's solution (a Harbor task's whole
 * `solution/` directory; a TASKS line's file alone). Loaded with the batch agent's `sandbox:` (its workdir,
 * environment allow-list, network and limits; the image is the task's, given as the runs' is), so that
 * solve.sh runs where and as the agent's tools do.
 */
export function oracleAgent(out: string, task: Task & { solution: string }, batchAgent: LoadedAgent): LoadedAgent {
  const home = oracleAgentDirectory(out, task.id);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, 'solution'), { recursive: true });
  if (basename(dirname(task.solution)) === 'solution') cpSync(dirname(task.solution), join(home, 'solution'), { recursive: true });
  else copyFileSync(task.solution, join(home, 'solution', 'solve.sh'));
  const timeoutMs = (task.timeout_sec ?? ORACLE_DEFAULT_TIMEOUT_SEC) * 1000;
  const yaml = [
    `name: ${ORACLE}`,
    `description: The oracle of the task ${JSON.stringify(task.id)}; its one tool runs the task's solution.`,
    'llm:',
    `  model: ${ORACLE}`,
    'tools:',
    `  - name: ${ORACLE_TOOL}`,
    "    description: Runs the task's solution, solution/solve.sh.",
    '    exec: bash ${AGENT_HOME}/solution/solve.sh',
    `    timeout_ms: ${Math.min(Math.round(timeoutMs), 2_147_483_647)}`,
    '',
  ].join('\n');
  writeFileSync(join(home, 'agent.yaml'), yaml);
  writeFileSync(join(home, 'system_prompt.md'), "The oracle: it runs the task's solution/solve.sh, then the verifier checks the result.\n");
  writeFileSync(
    join(home, 'context.yaml'),
    "sources:\n  - type: file\n    id: system_prompt\n    path: '${AGENT_HOME}/system_prompt.md'\n  - type: journal\n    id: conversation_history\n",
  );
  const agent = loadAgent(home);
  const { image: _image, ...sandbox } = batchAgent.config.sandbox ?? {};
  return { ...agent, config: { ...agent.config, ...(batchAgent.config.sandbox ? { sandbox } : {}) } };
}

/**
 * The oracle's model: no model at all, but a fixed client that answers the first request with one call of
 * `solve` and the next with a final answer. So the oracle's run is an ordinary run: its journal, its tool
 * call's stdout, stderr and exit code in io/, its layer, and `delta show`, `log` and `view` read it.
 */
export function oracleModelClient(): ModelClient {
  return {
    baseUrl: 'oracle:solution/solve.sh',
    async complete(payload, options) {
      const sent = options.body ?? Buffer.from(JSON.stringify(payload), 'utf8');
      options.onRequestBody?.(sent);
      const solved = payload.messages.some((message) => message.role === 'tool');
      const answer: ChatCompletion = {
        id: `oracle-${solved ? 2 : 1}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: ORACLE,
        choices: [
          {
            index: 0,
            finish_reason: solved ? 'stop' : 'tool_calls',
            message: solved
              ? { role: 'assistant', content: 'solution/solve.sh has run; the verifier decides.' }
              : {
                  role: 'assistant',
                  content: null,
                  tool_calls: [{ id: 'oracle-solve', type: 'function', function: { name: ORACLE_TOOL, arguments: '{}' } }],
                },
          },
        ],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      };
      return answer;
    },
  };
}
