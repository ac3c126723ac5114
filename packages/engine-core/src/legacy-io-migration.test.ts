import { existsSync, mkdirSync, readdirSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { continueRun, loadAgent, startRun } from './index.js';

// Spec 000 §3.2: v1.3 renamed a run's runtime_io/ to io/, "automatic migration". A v1.2 run continued here
// must not end with runtime_io/ and a new io/ side by side.

afterEach(cleanupTestResources);

async function interruptedRun() {
  const server = await startFakeLlm({
    script: [{ tool_calls: [{ name: 'say', arguments: { text: 'one' } }] }, { content: 'done' }],
  });
  const home = await createTempAgent({
    agentYaml: { name: 'old', llm: { model: 'm', max_retries: 0 }, tools: [{ name: 'say', description: 'Print', exec: 'echo ${text}' }] },
  });
  const workDir = join(await createTempDir('work-'), 'w');
  const options = { baseUrl: server.baseUrl, apiKey: 'k' };
  const first = await startRun({ ...options, agent: loadAgent(home), message: 'go', workDir, maxIterations: 1 });
  expect(first.status).toBe('INTERRUPTED');
  return { options, workDir, paths: first.paths };
}

const records = (dir: string, kind: string) => (existsSync(join(dir, kind)) ? readdirSync(join(dir, kind)).sort() : []);

describe('a v1.2 run with runtime_io/', () => {
  it('is moved to io/ when continued, with every old record kept and a SYSTEM_MESSAGE saying so', async () => {
    const { options, workDir, paths } = await interruptedRun();
    const oldInvocations = records(paths.ioDir, 'invocations');
    const oldExecutions = records(paths.ioDir, 'tool_executions');
    expect(oldInvocations).toHaveLength(1);
    renameSync(paths.ioDir, join(paths.runDir, 'runtime_io'));

    const resumed = await continueRun({ ...options, workDir });
    expect(resumed.status).toBe('COMPLETED');
    expect(existsSync(join(paths.runDir, 'runtime_io'))).toBe(false);
    const invocations = records(paths.ioDir, 'invocations');
    expect(invocations).toHaveLength(2);
    expect(invocations).toEqual(expect.arrayContaining(oldInvocations));
    expect(records(paths.ioDir, 'tool_executions')).toEqual(oldExecutions);
    const note = readJournal(paths.journal).find((event) => event.type === 'SYSTEM_MESSAGE');
    expect(note).toMatchObject({ level: 'INFO' });
    expect(note?.type === 'SYSTEM_MESSAGE' && note.content).toMatch(
      /^Migrated this run's v1\.2 runtime_io\/ to io\/ .*: 2 records moved\./,
    );
  });

  it('is merged into an io/ that an earlier continue created beside it, leaving no runtime_io/', async () => {
    const { options, workDir, paths } = await interruptedRun();
    const oldInvocations = records(paths.ioDir, 'invocations');
    renameSync(paths.ioDir, join(paths.runDir, 'runtime_io'));
    mkdirSync(join(paths.ioDir, 'hooks'), { recursive: true });

    const resumed = await continueRun({ ...options, workDir });
    expect(resumed.status).toBe('COMPLETED');
    expect(existsSync(join(paths.runDir, 'runtime_io'))).toBe(false);
    expect(records(paths.ioDir, 'invocations')).toEqual(expect.arrayContaining(oldInvocations));
    expect(records(paths.ioDir, 'invocations')).toHaveLength(2);
  });

  it('is left alone when runtime_io is a symbolic link, not a directory of the run', async () => {
    const { options, workDir, paths } = await interruptedRun();
    const elsewhere = await createTempDir('elsewhere-');
    mkdirSync(join(elsewhere, 'invocations'));
    symlinkSync(elsewhere, join(paths.runDir, 'runtime_io'));
    const resumed = await continueRun({ ...options, workDir });
    expect(resumed.status).toBe('COMPLETED');
    expect(readdirSync(join(elsewhere, 'invocations'))).toEqual([]);
    expect(readJournal(paths.journal).some((event) => event.type === 'SYSTEM_MESSAGE' && event.content.startsWith('Migrated'))).toBe(false);
  });

  it('never moves records through an io/<kind> that is a link, planted where the sandbox was off', async () => {
    const { options, workDir, paths } = await interruptedRun();
    renameSync(paths.ioDir, join(paths.runDir, 'runtime_io'));
    const elsewhere = await createTempDir('elsewhere-');
    mkdirSync(paths.ioDir);
    symlinkSync(elsewhere, join(paths.ioDir, 'invocations'));
    await continueRun({ ...options, workDir }).catch(() => undefined);
    expect(readdirSync(elsewhere).filter((name) => existsSync(join(paths.runDir, 'runtime_io', 'invocations', name)))).toEqual([]);
    expect(readdirSync(join(paths.runDir, 'runtime_io', 'invocations'))).toHaveLength(1);
  });
});
