import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupTestResources,
  createTempAgent,
  createTempDir,
  immutableUnsupported,
  mountSmallDisk,
  setImmutable,
  startFakeLlm,
  type FakeLlm,
  type ScriptStep,
  type SmallDisk,
} from '@delta/testkit';
import { readJournal, readMetadata, type JournalEvent, type RunMetadata } from '@delta/journal';
import { latestRunDir, startDelta, waitForJournal } from './test-processes.test-support.js';
import { runDelta } from './test-support.js';

// Real disk faults under real runs: a 3 MB tmpfs that a tool fills up, a tmpfs remounted read-only, a
// journal made immutable (chattr +i) while its run is going. Mounting and chattr need root, as in CI;
// elsewhere these tests skip, loudly, naming why.

const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
  await cleanupTestResources();
});

function skipLoudly(reason: string): void {
  console.warn(`\n!!!!!!!!\n!!! SKIPPING a disk-fault test of delta: ${reason}.\n!!!!!!!!\n`);
}

function smallDisk(size: string): SmallDisk | undefined {
  const disk = mountSmallDisk(size);
  if ('skip' in disk) {
    skipLoudly(disk.skip);
    return undefined;
  }
  cleanups.push(() => disk.unmount());
  return disk;
}

/** A file appears in `dir` when the test says so: the `wait_for` tool waits for it. */
const WAIT_TOOL = '#!/bin/sh\n[ "$1" = -- ] && shift\nuntil [ -e "$1" ]; do sleep 0.01; done\necho "$1 is there"\n';

async function waitForFirstInvocationRecords(invocations: string, timeoutMs = 120_000): Promise<void> {
  const recorded = () => {
    const first = readdirSync(invocations).find((name) => name.startsWith('0001_'));
    return first !== undefined && existsSync(join(invocations, first, 'metadata.json'));
  };
  await expect
    .poll(recorded, {
      timeout: timeoutMs,
      interval: 5,
      message: `${invocations}/0001_*/metadata.json never appeared within ${timeoutMs} ms`,
    })
    .toBe(true);
}

async function agentWithTools(): Promise<string> {
  return createTempAgent({
    agentYaml: {
      name: 'disk-faults',
      llm: { model: 'test-model', max_retries: 0 },
      // Unsandboxed: wait.sh waits for a file the test makes under /tmp, which the sandbox replaces.
      sandbox: { mode: 'off' },
      tools: [
        { name: 'say', description: 'Say something', exec: 'printf -- %s ${text}' },
        { name: 'fill', description: 'Write a large file', exec: 'dd if=/dev/zero of=${file} bs=64k count=100' },
        { name: 'wait_for', description: 'Wait for a file', exec: '${AGENT_HOME}/wait.sh -- ${file}' },
      ],
    },
    files: { 'wait.sh': { content: WAIT_TOOL, mode: 0o755 } },
  });
}

async function model(script: ScriptStep[]): Promise<{ env: Record<string, string>; server: FakeLlm }> {
  const server = await startFakeLlm({ script });
  return { env: { DELTA_API_KEY: 'test-key', DELTA_BASE_URL: server.baseUrl }, server };
}

const say = (text: string): ScriptStep => ({ content: `Saying ${text}.`, tool_calls: [{ name: 'say', arguments: { text } }] });
const ANSWER = 'Everything is done.';

function runState(work: string): { runDir: string; metadata: RunMetadata; events: JournalEvent[] } {
  const runDir = latestRunDir(work)!;
  return { runDir, metadata: readMetadata(join(runDir, 'metadata.json')), events: readJournal(join(runDir, 'journal.jsonl')) };
}

/** The status of the journal's last ENGINE_END after its last ENGINE_START, if the journal could take it. */
function lastEnd(events: readonly JournalEvent[]): string | undefined {
  for (const event of [...events].reverse()) {
    if (event.type === 'ENGINE_END') return event.status;
    if (event.type === 'ENGINE_START') return undefined;
  }
  return undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('a full disk (ENOSPC)', () => {
  it('ends the run FAILED with "no space" and the file, never as a model error; delta continue completes it once there is room', async () => {
    const disk = smallDisk('3m');
    if (!disk) return;
    const { env, server } = await model([
      say('one'),
      { content: 'Writing a large file.', tool_calls: [{ name: 'fill', arguments: { file: 'big.bin' } }] },
      say('three'),
      { content: ANSWER },
    ]);
    const agent = await agentWithTools();
    const work = join(disk.dir, 'ws');

    const failed = await runDelta(['run', '--agent', agent, '-m', 'Fill the disk', '-w', work], { env });
    const { runDir, metadata, events } = runState(work);
    expect(failed.exitCode, failed.stderr).toBe(1);
    const named = new RegExp(`Cannot write ${escapeRegExp(runDir)}/\\S+: no space left on device \\(ENOSPC\\)\\.`);
    expect(failed.stderr).toMatch(named);
    expect(failed.stderr).toContain('Hint: Free some space on the file system that holds');
    expect(failed.stderr).not.toMatch(/model endpoint|MODEL_|EPIPE| {4}at /);
    // metadata.json is not RUNNING: it says FAILED, with the error, and agrees with the journal's end if it has one.
    expect(metadata).toMatchObject({ status: 'FAILED', exit_code: 1 });
    expect(metadata.error).toMatch(named);
    expect(lastEnd(events) ?? 'FAILED').toBe('FAILED');
    // The third request was never sent: the disk refused its record first.
    expect(server.requests).toHaveLength(2);

    rmSync(join(work, 'big.bin'));
    const resumed = await runDelta(['continue', '-w', work, '-m', 'There is room again; go on.'], { env });
    expect(resumed.stderr).not.toContain('Error');
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toBe(`${ANSWER}\n`);
    const after = runState(work);
    expect(after.metadata).toMatchObject({ status: 'COMPLETED', error: null });
    expect(after.events.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
    expect(server.requests).toHaveLength(4);
  });
});

describe('a read-only disk (EROFS)', () => {
  it('refuses to continue a run while its disk is read-only, naming the file, and leaves the run as it was; after a remount it goes on', async () => {
    const disk = smallDisk('8m');
    if (!disk) return;
    const { env, server } = await model([say('one'), { content: ANSWER }, { content: 'Done again.' }]);
    const agent = await agentWithTools();
    const work = join(disk.dir, 'ws');
    expect((await runDelta(['run', '--agent', agent, '-m', 'Say one', '-w', work], { env })).exitCode).toBe(0);

    disk.remount('ro');
    const refused = await runDelta(['continue', '-w', work, '-m', 'More'], { env });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`^Error: Cannot write ${escapeRegExp(disk.dir)}/ws/\\.delta/\\S+: read-only file system \\(EROFS\\)\\.\n`),
    );
    expect(refused.stderr).toContain('Hint: Remount the file system');
    expect(refused.stderr).not.toMatch(/ {4}at /);
    expect(runState(work).metadata.status).toBe('COMPLETED');
    const newRun = await runDelta(['run', '--agent', agent, '-m', 'Another', '-w', work], { env });
    expect(newRun.exitCode).toBe(1);
    expect(newRun.stderr).toMatch(/^Error: Cannot write \S+: read-only file system \(EROFS\)\.\n/);
    expect(server.requests).toHaveLength(2);

    disk.remount('rw');
    const resumed = await runDelta(['continue', '-w', work, '-m', 'More'], { env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe('Done again.\n');
    expect(runState(work).metadata.status).toBe('COMPLETED');
  });

  it('a part of the control plane that turns read-only mid-run ends the run FAILED, and metadata.json says so', async () => {
    const check = mountSmallDisk('1m');
    if ('skip' in check) return skipLoudly(check.skip);
    check.unmount();
    const signals = await createTempDir('signals-');
    const { env, server } = await model([
      { content: 'Waiting.', tool_calls: [{ name: 'wait_for', arguments: { file: join(signals, 'go') } }] },
      say('two'),
      { content: ANSWER },
    ]);
    const agent = await agentWithTools();
    const work = join(await createTempDir('work-'), 'ws');

    const running = startDelta(['run', '--agent', agent, '-m', 'Wait, then go on', '-w', work], env);
    await waitForJournal(work, (line) => line.includes('"ACTION_REQUEST"'));
    // While the tool waits, the run's io/invocations/ becomes a read-only file system of its own.
    const invocations = join(latestRunDir(work)!, 'io', 'invocations');
    // The launcher writes the first call's records (response.json, then metadata.json) while the engine
    // goes on: wait for the last of them, or the mount hides their directory mid-write (ENOENT, not EROFS).
    await waitForFirstInvocationRecords(invocations);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', invocations], { encoding: 'utf8' });
    expect(mounted.stderr).toBe('');
    cleanups.push(() => spawnSync('umount', ['-l', invocations]));
    writeFileSync(join(signals, 'go'), '');
    const failed = await running.done;

    const { metadata, events } = runState(work);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(
      new RegExp(`Error: Cannot write ${escapeRegExp(invocations)}/0002_\\w+: read-only file system \\(EROFS\\)\\.`),
    );
    expect(metadata).toMatchObject({ status: 'FAILED', error: expect.stringContaining('read-only file system') });
    expect(lastEnd(events)).toBe('FAILED');
    expect(server.requests).toHaveLength(1);

    spawnSync('umount', [invocations]);
    const resumed = await runDelta(['continue', '-w', work, '-m', 'Go on'], { env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(`${ANSWER}\n`);
  });
});

describe('an immutable journal (EPERM)', () => {
  it('ends the run FAILED naming the journal and chattr; metadata.json says FAILED; once mutable, continue resumes from the journal', async () => {
    const work = join(await createTempDir('work-'), 'ws');
    mkdirSync(work, { recursive: true });
    const unsupported = immutableUnsupported(work);
    if (unsupported) return skipLoudly(unsupported);
    const signals = await createTempDir('signals-');
    const { env } = await model([
      { content: 'Waiting.', tool_calls: [{ name: 'wait_for', arguments: { file: join(signals, 'go') } }] },
      say('two'),
      { content: ANSWER },
    ]);
    const agent = await agentWithTools();

    const running = startDelta(['run', '--agent', agent, '-m', 'Wait, then go on', '-w', work], env);
    await waitForJournal(work, (line) => line.includes('"ACTION_REQUEST"'));
    const journal = join(latestRunDir(work)!, 'journal.jsonl');
    setImmutable(journal, true);
    cleanups.push(() => setImmutable(journal, false));
    writeFileSync(join(signals, 'go'), '');
    const failed = await running.done;

    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(`Error: Cannot write ${journal}: operation not permitted (EPERM).`);
    expect(failed.stderr).toContain(`chattr -i ${journal}`);
    const { metadata, events } = runState(work);
    // The journal took nothing more (not the tool's result, not the end); metadata.json has the error.
    expect(events.at(-1)).toMatchObject({ type: 'ACTION_REQUEST', tool_name: 'wait_for' });
    expect(metadata).toMatchObject({ status: 'FAILED', error: `Cannot write ${journal}: operation not permitted (EPERM).` });

    setImmutable(journal, false);
    const resumed = await runDelta(['continue', '-w', work, '-m', 'Go on'], { env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(`${ANSWER}\n`);
    const after = runState(work).events;
    expect(after.find((event) => event.type === 'SYSTEM_MESSAGE')).toMatchObject({
      content: expect.stringContaining(
        `ended it FAILED (Cannot write ${journal}: operation not permitted (EPERM).), but could not record that`,
      ),
    });
    expect(after.find((event) => event.type === 'ACTION_RESULT' && event.tool_name === 'wait_for')).toMatchObject({
      observation_content: expect.stringContaining('the run stopped while this tool call was running'),
    });
    expect(after.at(-1)).toMatchObject({ type: 'ENGINE_END', status: 'COMPLETED' });
  });
});
