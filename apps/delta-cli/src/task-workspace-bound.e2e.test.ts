// Issue 42, fault 9, through `delta batch`: a task workspace over its bound is refused before any run (exit 2),
// and --max-task-workspace sets the bound.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

let llm: FakeLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
  await cleanupTestResources();
});

describe('delta batch --max-task-workspace', () => {
  it('refuses a task over the bound it sets before any run, naming the task and the flag; a malformed bound is a usage error', async () => {
    llm = await startFakeLlm({ script: () => ({ content: 'done' }) });
    const agent = await createTempAgent({ agentYaml: { name: 'plain', llm: { model: 'm', max_retries: 0 } } });
    const directory = await createTempDir('bound-');
    mkdirSync(join(directory, 'files'));
    for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(directory, 'files', name), name);
    const tasksFile = join(directory, 'tasks.jsonl');
    writeFileSync(tasksFile, `${JSON.stringify({ id: 'three', message: 'go', workspace: 'files' })}\n`);
    const env = { DELTA_API_KEY: 'k', DELTA_BASE_URL: llm.baseUrl };
    const batch = (bound: string) =>
      runDelta(['batch', tasksFile, '--agent', agent, '--out', join(directory, 'out'), '--max-task-workspace', bound], { env });

    const refused = await batch('entries=2');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      `The task three cannot be run: its workspace directory ${join(directory, 'files')} holds more than 2 entries`,
    );
    expect(refused.stderr).toContain('--max-task-workspace entries=4');
    expect(llm.requests).toEqual([]);

    const malformed = await batch('entries=2K');
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toContain('--max-task-workspace: entries is a count, not a size ("entries=2K")');

    const raised = await batch('entries=3,allocated=1M');
    expect(raised.exitCode, raised.stderr).toBe(0);
    expect(llm.requests).toHaveLength(1);
  });
});
