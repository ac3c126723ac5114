import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HOOK_NAMES } from '@delta/hooks';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, type ScriptStepInput } from '@delta/testkit';
import { readJournal, type JournalEvent } from '@delta/journal';
import { continueRun, loadAgent, startRun, type RunResult } from './index.js';

// The order of a run's journal events and hooks around the loop's decisions, where a stop, a pause or a
// failing hook meets a step. Every sequence below is what the loop wrote before it was split into
// decisions and effects (issue 35): the split changed none of them.

afterEach(cleanupTestResources);

/** One line per event, with what decides the order: iterations, hooks and their status, tools, how it ended. */
function line(event: JournalEvent): string {
  switch (event.type) {
    case 'THOUGHT':
      return `THOUGHT ${event.iteration} [${event.tool_calls.map((call) => call.name).join(',')}]`;
    case 'ACTION_REQUEST':
      return `REQUEST ${event.iteration} ${event.tool_name}`;
    case 'ACTION_RESULT':
      return `RESULT ${event.iteration} ${event.tool_name} ${event.status}`;
    case 'HOOK_EXECUTION_AUDIT':
      return `HOOK ${event.iteration} ${event.hook_name} ${event.status}`;
    case 'HUMAN_INPUT_REQUEST':
    case 'HUMAN_INPUT_RECEIVED':
      return `${event.type} ${event.iteration}`;
    case 'ENGINE_END':
      return `END ${event.status}`;
    default:
      return event.type;
  }
}

async function agentWith(options: { hook?: 'ok' | 'fail'; pricing?: boolean } = {}) {
  return createTempAgent({
    agentYaml: {
      name: 'loop-order',
      llm: {
        model: 'm',
        max_retries: 0,
        ...(options.pricing ? { pricing: { input_per_million: 1_000_000, output_per_million: 1_000_000 } } : {}),
      },
      sandbox: { mode: 'off' },
      tools: [
        { name: 'mark', description: 'Leave a mark', shell: 'echo ran >> marks' },
        { name: 'slow', description: 'Say it started, then sleep', shell: 'touch started; sleep 20' },
        { name: 'append', description: 'Append to a file', shell: 'echo changed >> ${path}' },
      ],
    },
    hooksYaml: HOOK_NAMES.map((name) => `${name}:\n  command: ['sh', '\${AGENT_HOME}/${options.hook ?? 'ok'}.sh']\n`).join(''),
    files: { 'ok.sh': 'exit 0\n', 'fail.sh': 'exit 1\n' },
  });
}

async function run(agentHome: string, script: ScriptStepInput[], options: Record<string, unknown> = {}) {
  const server = await startFakeLlm({ script });
  const workDir = join(await createTempDir('loop-order-'), 'w');
  const common = { environment: { PATH: process.env.PATH, DELTA_API_KEY: 'k' }, baseUrl: server.baseUrl };
  const result = await startRun({ agent: loadAgent(agentHome), message: 'task', workDir, ...common, ...options });
  return { result, workDir, common, journal: () => readJournal(result.paths.journal).map(line), server };
}

const mark = { name: 'mark', arguments: {} };
const ITERATION_1 = ['ENGINE_START', 'USER_MESSAGE', 'HOOK 1 on_iteration_start SUCCESS', 'HOOK 1 pre_llm_request SUCCESS'];

describe('the order of events and hooks around the loop decisions', () => {
  it('ask_human among several calls: the calls before it run, the run pauses, and the answer resumes the calls after it', async () => {
    const agent = await agentWith();
    const script = [{ tool_calls: [mark, { name: 'ask_human', arguments: { prompt: 'ok?' } }, mark] }, { content: 'done' }];
    const { result, workDir, common, journal } = await run(agent, script);
    expect([result.status, result.exitCode]).toEqual(['WAITING_FOR_INPUT', 101]);
    const resumed: RunResult = await continueRun({ agent: loadAgent(agent), workDir, runId: result.runId, message: 'yes', ...common });
    expect([resumed.status, resumed.finalAnswer]).toEqual(['COMPLETED', 'done']);
    expect(journal()).toEqual([
      ...ITERATION_1,
      'HOOK 1 post_llm_response SUCCESS',
      'THOUGHT 1 [mark,ask_human,mark]',
      'REQUEST 1 mark',
      'HOOK 1 pre_tool_execution SUCCESS',
      'HOOK 1 post_tool_execution SUCCESS',
      'RESULT 1 mark SUCCESS',
      'REQUEST 1 ask_human',
      'HUMAN_INPUT_REQUEST 1',
      'HOOK 1 on_run_end SUCCESS',
      'END WAITING_FOR_INPUT',
      'ENGINE_START',
      'HUMAN_INPUT_RECEIVED 1',
      'RESULT 1 ask_human SUCCESS',
      'REQUEST 1 mark',
      'HOOK 1 pre_tool_execution SUCCESS',
      'HOOK 1 post_tool_execution SUCCESS',
      'RESULT 1 mark SUCCESS',
      'HOOK 1 on_iteration_end SUCCESS',
      'HOOK 2 on_iteration_start SUCCESS',
      'HOOK 2 pre_llm_request SUCCESS',
      'HOOK 2 post_llm_response SUCCESS',
      'THOUGHT 2 []',
      'HOOK 2 on_iteration_end SUCCESS',
      'HOOK 2 on_run_end SUCCESS',
      'END COMPLETED',
    ]);
  });

  it('every hook failing: the gate blocks the call, the others are recorded and the run goes on to COMPLETED', async () => {
    const { result, journal } = await run(await agentWith({ hook: 'fail' }), [{ tool_calls: [mark] }, { content: 'done' }]);
    expect(result.status).toBe('COMPLETED');
    expect(journal()).toEqual([
      'ENGINE_START',
      'USER_MESSAGE',
      'HOOK 1 on_iteration_start FAILED',
      'HOOK 1 pre_llm_request FAILED',
      'SYSTEM_MESSAGE',
      'HOOK 1 post_llm_response FAILED',
      'THOUGHT 1 [mark]',
      'REQUEST 1 mark',
      'HOOK 1 pre_tool_execution FAILED',
      'RESULT 1 mark ERROR',
      'HOOK 1 on_iteration_end FAILED',
      'HOOK 2 on_iteration_start FAILED',
      'HOOK 2 pre_llm_request FAILED',
      'SYSTEM_MESSAGE',
      'HOOK 2 post_llm_response FAILED',
      'THOUGHT 2 []',
      'HOOK 2 on_iteration_end FAILED',
      'HOOK 2 on_run_end FAILED',
      'END COMPLETED',
    ]);
  });

  it('--max-cost, --max-iterations and a changed pinned agent stop after the iteration ends, before the next model call', async () => {
    const cases = [
      { options: { maxCost: 1 }, pricing: true, call: mark, exitCode: 3, reason: /^reached the cost limit \(--max-cost 1 USD\)/ },
      { options: { maxIterations: 1 }, pricing: false, call: mark, exitCode: 3, reason: /^reached the iteration budget/ },
      { options: { pinAgentVersion: true }, pricing: false, call: undefined, exitCode: 130, reason: /^the agent's files changed/ },
    ];
    for (const { options, pricing, call, exitCode, reason } of cases) {
      const agent = await agentWith({ pricing });
      // The pinned case changes the agent's prompt from a tool.
      const step = call ?? { name: 'append', arguments: { path: join(agent, 'system_prompt.md') } };
      const usage = { prompt_tokens: 1, completion_tokens: 1 };
      const { result, journal, server } = await run(agent, [{ tool_calls: [step], usage }, { content: 'done' }], options);
      expect([result.status, result.exitCode]).toEqual(['INTERRUPTED', exitCode]);
      expect(result.reason).toMatch(reason);
      expect(server.requests).toHaveLength(1);
      expect(journal().slice(-6)).toEqual([
        'HOOK 1 pre_tool_execution SUCCESS',
        'HOOK 1 post_tool_execution SUCCESS',
        `RESULT 1 ${step.name} SUCCESS`,
        'HOOK 1 on_iteration_end SUCCESS',
        'HOOK 1 on_run_end SUCCESS',
        'END INTERRUPTED',
      ]);
      await server.close();
    }
  });

  it('a signal while a call runs: it is stopped, the calls after it are not run, the iteration ends, the run is INTERRUPTED', async () => {
    const controller = new AbortController();
    const agent = await agentWith();
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'slow', arguments: {} }, mark] }, { content: 'done' }] });
    const workDir = join(await createTempDir('loop-order-'), 'w');
    const running = startRun({
      agent: loadAgent(agent),
      message: 'task',
      workDir,
      environment: { PATH: process.env.PATH, DELTA_API_KEY: 'k' },
      baseUrl: server.baseUrl,
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(existsSync(join(workDir, 'started'))).toBe(true), { timeout: 20_000, interval: 10 });
    controller.abort();
    const result = await running;
    expect([result.status, result.exitCode]).toEqual(['INTERRUPTED', 130]);
    expect(existsSync(join(workDir, 'marks'))).toBe(false);
    const journal = readJournal(result.paths.journal);
    expect(journal.map(line).slice(5)).toEqual([
      'THOUGHT 1 [slow,mark]',
      'REQUEST 1 slow',
      'HOOK 1 pre_tool_execution SUCCESS',
      // Run with the run's signal, aborted already: stopped at once.
      'HOOK 1 post_tool_execution FAILED',
      'RESULT 1 slow FAILED',
      'REQUEST 1 mark',
      'RESULT 1 mark ERROR',
      'HOOK 1 on_iteration_end FAILED',
      'HOOK 1 on_run_end SUCCESS',
      'END INTERRUPTED',
    ]);
    const notRun = journal.find((event) => event.type === 'ACTION_RESULT' && event.tool_name === 'mark');
    expect(notRun).toMatchObject({ observation_content: '[not run: the run was interrupted before this tool call started]' });
  });
});
