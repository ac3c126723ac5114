import { cpSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempDir, loadScript, startFakeLlm } from '@delta/testkit';
import { readInvocationRequest, readJournal, readMetadata, runPaths } from '@delta/journal';
import { DELTA_BIN, REPOSITORY_ROOT, expectSandbox, runProcess } from './run-delta.js';

interface Message {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
}

afterEach(cleanupTestResources);

const TASK = 'Review all the records';
const RECORD_BYTES = 1166; // what `records.py read record-NN` prints (about 1 KB each)

describe('examples/2-core-features/memory-folding', () => {
  it('keeps the request bounded over 43 iterations while the task and the folded summary stay in the context', async () => {
    const agent = join(await createTempDir('memory-folding-'), 'memory-folding');
    cpSync(join(REPOSITORY_ROOT, 'examples/2-core-features/memory-folding'), agent, { recursive: true });
    const server = await startFakeLlm({ script: loadScript(join(agent, 'fake-llm.yaml')) });

    const result = await runProcess(process.execPath, [DELTA_BIN, 'run', '--agent', agent, '-m', TASK, '-y'], {
      env: { DELTA_BASE_URL: server.baseUrl, DELTA_API_KEY: 'fake', OPENAI_API_KEY: undefined },
    });
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('I reviewed all 40 records and wrote report.md');

    const requests = server.requests.filter((request) => request.status === 200);
    expect(requests).toHaveLength(43);
    const conversations = requests.map((request) => (request.body as { messages: Message[] }).messages);
    const sizes = requests.map((request) => request.rawBody.length);

    for (const [index, messages] of conversations.entries()) {
      const iteration = index + 1;
      // The instructions, the summary, the task, then at most the last 5 iterations (assistant + tool).
      expect(messages[0]!.content).toMatch(/^# Context Block: system_prompt\n\nYou review records one at a time/);
      expect(messages[1]!.content).toMatch(/^# Context Block: memory_summary\n\n## Memory summary\n/);
      expect(messages[2]).toEqual({ role: 'user', content: TASK });
      expect(messages.length).toBeLessThanOrEqual(3 + 5 * 2);
      const kept = messages.filter((message) => message.role === 'assistant').length;
      expect(kept).toBe(Math.min(iteration - 1, 5));
      // Everything older than the window is folded into the summary, one decision a line.
      if (iteration > 6) expect(messages[1]!.content).toContain(`Iterations 1-${iteration - 6} are folded here`);
    }

    // The request stops growing once the window is full: each new record replaces one that left it.
    const recordsSent = (messages: Message[]) => messages.filter((message) => message.content?.includes('status')).length;
    expect(recordsSent(conversations.at(-1)!)).toBeLessThanOrEqual(5);
    const plateau = sizes.slice(8);
    expect(Math.max(...plateau) - Math.min(...plateau)).toBeLessThan(4 * RECORD_BYTES);
    expect(Math.max(...sizes)).toBeLessThan(16_000);
    // Without folding the last request would hold all 40 records.
    expect(sizes.at(-1)!).toBeLessThan((40 * RECORD_BYTES) / 3);

    // The summary remembers decisions whose records left the window long ago.
    const lastSummary = conversations.at(-1)![1]!.content!;
    expect(lastSummary).toContain('- [9] record-07 is an ANOMALY. Reading record-08.');
    expect(lastSummary).toContain('- read_record: 36');
    expect(JSON.stringify(conversations.at(-1))).not.toContain('record-07: sensor S07');

    const workspace = join(agent, 'workspaces', 'W001');
    expect(readFileSync(join(workspace, 'report.md'), 'utf8')).toBe(
      '# Sensor review\n\n40 records read. Anomalies: record-07, record-14, record-21, record-28, record-35.\n',
    );
    const runDir = join(workspace, '.delta', readFileSync(join(workspace, '.delta', 'LATEST'), 'utf8').trim());
    expect(readMetadata(join(runDir, 'metadata.json'))).toMatchObject({ status: 'COMPLETED', iterations: 43 });
    expect(readJournal(join(runDir, 'journal.jsonl')).filter((event) => event.type === 'ACTION_RESULT')).toHaveLength(42);
    // Its tools ran sandboxed (its generator, the researcher's own, did not).
    expectSandbox(readJournal(join(runDir, 'journal.jsonl')));
    // Each generator run is recorded under io/context, and io/invocations holds exactly what was sent.
    expect(readdirSync(join(runDir, 'io', 'context'))).toHaveLength(43);
    expect(readFileSync(join(runDir, 'io', 'context', '0043_memory_summary', 'exit_code.txt'), 'utf8')).toBe('0\n');
    const invocations = readdirSync(join(runDir, 'io', 'invocations')).sort();
    const lastSent = JSON.parse(readInvocationRequest(runPaths(workspace, runDir.split('/').at(-1)!), invocations.at(-1)!));
    expect(lastSent.messages).toEqual(conversations.at(-1));
    expect(existsSync(join(workspace, '.delta', 'context_artifacts', 'summary.md'))).toBe(true);
  });

  it('bounds the context by total_max_tokens alone, dropping the oldest iterations, when the window is taken away', async () => {
    const agent = join(await createTempDir('memory-folding-'), 'memory-folding');
    cpSync(join(REPOSITORY_ROOT, 'examples/2-core-features/memory-folding'), agent, { recursive: true });
    const contextYaml = readFileSync(join(agent, 'context.yaml'), 'utf8');
    writeFileSync(
      join(agent, 'context.yaml'),
      contextYaml.replace('total_max_tokens: 8000', 'total_max_tokens: 3000').replace('    max_iterations: 5\n', ''),
    );
    const server = await startFakeLlm({
      script: [...loadScript(join(agent, 'fake-llm.yaml')).slice(0, 20), { content: 'Stopping here.' }],
    });

    const result = await runProcess(process.execPath, [DELTA_BIN, 'run', '--agent', agent, '-m', TASK, '-y'], {
      env: { DELTA_BASE_URL: server.baseUrl, DELTA_API_KEY: 'fake', OPENAI_API_KEY: undefined },
    });
    expect(result.stderr).toContain('ended: COMPLETED');
    // Every request passed the strict checks (no orphaned tool result), so each used a step.
    expect(server.requests.map((request) => request.status)).toEqual(Array(21).fill(200));
    const conversations = server.requests.map((request) => (request.body as { messages: Message[] }).messages);
    const last = conversations.at(-1)!;
    expect(last[2]!.content).toMatch(
      /^Review all the records\n\n\[Delta Engine: \d+ earlier iterations \(iterations 1-\d+\) are left out of this context to fit its token budget of \d+; the full history is in .*journal\.jsonl\]$/,
    );
    expect(last.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('record-19: sensor S19') });
    // About 4 characters a token: the messages stay near 3000 tokens however long the run.
    for (const messages of conversations) expect(JSON.stringify(messages).length).toBeLessThan(3000 * 4 * 1.2);
  });
});
