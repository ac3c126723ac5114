import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireRunLock, runPaths } from '@delta/journal';
import { cleanupTempDirs, createTempAgent, createTempWorkspace } from '@delta/testkit';
import { resolveModelSettings } from './model-settings.js';
import { judgeWorkspaceEnv, recordWorkspaceEnvEnd, recordWorkspaceEnvStart, workspaceEnvDigest } from './workspace-env-trust.js';

afterAll(cleanupTempDirs);

const recorded = {
  base_url: 'http://recorded.test/v1',
  base_url_source: 'environment',
  api_key_name: 'DELTA_API_KEY',
  api_key_source: 'environment',
};

describe('resolveModelSettings with a recorded endpoint', () => {
  it('keeps the recorded base URL over a workspace .env, and warns naming it', async () => {
    const agent = await createTempAgent();
    const workspace = await createTempWorkspace({ files: { '.env': 'DELTA_BASE_URL=http://trap.test/v1\nDELTA_API_KEY=sk-tool\n' } });
    const warnings: string[] = [];
    const settings = resolveModelSettings(
      workspace,
      agent,
      { DELTA_API_KEY: 'sk-user' },
      { recorded, onWarning: (line) => warnings.push(line) },
    );
    expect(settings).toMatchObject({
      baseUrl: 'http://recorded.test/v1',
      baseUrlSource: 'recorded',
      apiKey: 'sk-user',
      apiKeySource: 'environment',
    });
    expect(warnings).toEqual([
      expect.stringContaining(
        `${join(workspace, '.env')} now sets DELTA_BASE_URL=http://trap.test/v1, but this run started with http://recorded.test/v1`,
      ),
    ]);
  });

  it('follows the process environment (no tool writes it) when it now names another, and says so', async () => {
    const agent = await createTempAgent();
    const workspace = await createTempWorkspace({ files: { '.env': 'DELTA_BASE_URL=http://trap.test/v1\n' } });
    const warnings: string[] = [];
    const environment = { DELTA_API_KEY: 'k', DELTA_BASE_URL: 'http://moved.test/v1' };
    const settings = resolveModelSettings(workspace, agent, environment, { recorded, onWarning: (line) => warnings.push(line) });
    expect(settings.baseUrl).toBe('http://moved.test/v1');
    expect(warnings).toEqual([
      expect.stringContaining(
        `${join(workspace, '.env')} now sets DELTA_BASE_URL=http://trap.test/v1, but this run started with http://recorded.test/v1`,
      ),
      "this run started with http://recorded.test/v1; the environment's DELTA_BASE_URL now names http://moved.test/v1, so it continues there.",
    ]);
  });

  it('takes --base-url over the recorded endpoint', async () => {
    const agent = await createTempAgent();
    const workspace = await createTempWorkspace();
    const settings = resolveModelSettings(workspace, agent, { DELTA_API_KEY: 'k' }, { recorded, baseUrl: 'http://chosen.test/v1' });
    expect(settings.baseUrl).toBe('http://chosen.test/v1');
  });

  it('leaves the workspace .env out when told to', async () => {
    const agent = await createTempAgent();
    const workspace = await createTempWorkspace({ files: { '.env': 'DELTA_BASE_URL=http://trap.test/v1\n' } });
    const settings = resolveModelSettings(
      workspace,
      agent,
      { DELTA_API_KEY: 'k', DELTA_BASE_URL: 'http://user.test/v1' },
      { skipWorkspaceEnv: true },
    );
    expect(settings.baseUrl).toBe('http://user.test/v1');
  });

  it('does not read a .env that is a FIFO or a link to /dev/zero, and says so', async () => {
    const agent = await createTempAgent();
    const workspace = await createTempWorkspace();
    execFileSync('mkfifo', [join(workspace, '.env')]);
    symlinkSync('/dev/zero', join(agent, '.env'));
    const warnings: string[] = [];
    const settings = resolveModelSettings(workspace, agent, { DELTA_API_KEY: 'k' }, { onWarning: (line) => warnings.push(line) });
    expect(settings.apiKey).toBe('k');
    expect(warnings).toEqual([
      `${join(workspace, '.env')} is a FIFO (named pipe), not a regular file; it is not read.`,
      `${join(agent, '.env')} is a symbolic link to /dev/zero, a system file; it is not read.`,
    ]);
  });
});

describe('judgeWorkspaceEnv', () => {
  async function workspaceWithControl() {
    const workspace = await createTempWorkspace();
    mkdirSync(join(workspace, '.delta'));
    return workspace;
  }

  /** An engine of run `runId` in the workspace: its run lock taken, its start recorded; end() records its end and lets go. */
  function startEngine(workspace: string, runId: string) {
    mkdirSync(runPaths(workspace, runId).runDir, { recursive: true });
    const lock = acquireRunLock(runPaths(workspace, runId).lock, runId);
    recordWorkspaceEnvStart(workspace, runId);
    return {
      end: () => {
        recordWorkspaceEnvEnd(workspace, runId);
        lock.release();
      },
      // kill -9: the lock's holder is gone (here: released) and no end is recorded.
      crash: () => lock.release(),
    };
  }

  it('trusts a .env when nothing is recorded, and one the user changed while no engine ran', async () => {
    const workspace = await workspaceWithControl();
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user.test/v1\n');
    expect(judgeWorkspaceEnv(workspace).distrusted).toBeUndefined();
    startEngine(workspace, 'r1').end();
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user-again.test/v1\n');
    const judged = judgeWorkspaceEnv(workspace);
    expect(judged.distrusted).toBeUndefined();
    expect(judged.values).toEqual({ DELTA_BASE_URL: 'http://user-again.test/v1' });
  });

  it('distrusts a .env written during a run, in every later run, until the user changes it', async () => {
    const workspace = await workspaceWithControl();
    const first = startEngine(workspace, 'r1');
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://trap.test/v1\n'); // a tool
    first.end();
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed while run r1 ran (its tools can write it)');
    startEngine(workspace, 'r2').end();
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed while run r1 ran (its tools can write it)');
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user.test/v1\n'); // the user, between runs
    expect(judgeWorkspaceEnv(workspace).distrusted).toBeUndefined();
  });

  it('distrusts a .env a run wrote after another run of the workspace ended (the record is not overwritten by the other)', async () => {
    const workspace = await workspaceWithControl();
    const a = startEngine(workspace, 'a');
    startEngine(workspace, 'b').end();
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://trap.test/v1\n'); // a's tool, after b ended
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed while run a ran (its tools can write it)');
    a.end();
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed while run a ran (its tools can write it)');
  });

  it('distrusts a .env changed after a start whose engine never recorded its end (kill -9), and trusts the next edit', async () => {
    const workspace = await workspaceWithControl();
    const a = startEngine(workspace, 'a');
    startEngine(workspace, 'b').end();
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://trap.test/v1\n');
    a.crash();
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed after run a started, and that engine did not record its end');
    startEngine(workspace, 'c').end();
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed after run a started, and that engine did not record its end');
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user.test/v1\n');
    expect(judgeWorkspaceEnv(workspace).distrusted).toBeUndefined();
  });

  it('distrusts a change the user made while a run was going, and reads a version 1 record (one run, overwritten by each)', async () => {
    const workspace = await workspaceWithControl();
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://trap.test/v1\n');
    const trap = workspaceEnvDigest(workspace);
    writeFileSync(
      join(workspace, '.delta', 'workspace-env.json'),
      `${JSON.stringify({ run_id: 'old', trusted_sha256: null, end_sha256: trap })}\n`,
    );
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed while run old ran (its tools can write it)');
    // Version 1 without an end, its run's engine gone.
    writeFileSync(join(workspace, '.delta', 'workspace-env.json'), `${JSON.stringify({ run_id: 'old', trusted_sha256: null })}\n`);
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed after run old started, and that engine did not record its end');
    startEngine(workspace, 'new').end();
    const record = JSON.parse(readFileSync(join(workspace, '.delta', 'workspace-env.json'), 'utf8'));
    expect(record).toMatchObject({ schema_version: 2, trusted_sha256: null, last_sha256: trap, open: [] });
  });
});
