import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempWorkspace } from '@delta/testkit';
import { resolveModelSettings } from './model-settings.js';
import { judgeWorkspaceEnv, recordWorkspaceEnvEnd, recordWorkspaceEnvStart } from './workspace-env-trust.js';

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

  it('trusts a .env when nothing is recorded, and one the user changed while no engine ran', async () => {
    const workspace = await workspaceWithControl();
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user.test/v1\n');
    const first = judgeWorkspaceEnv(workspace);
    expect(first.distrusted).toBeUndefined();
    recordWorkspaceEnvStart(workspace, 'r1', first);
    recordWorkspaceEnvEnd(workspace, 'r1', first);
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user-again.test/v1\n');
    expect(judgeWorkspaceEnv(workspace).distrusted).toBeUndefined();
  });

  it('distrusts a .env written during a run, in every later run, until the user changes it', async () => {
    const workspace = await workspaceWithControl();
    const start = judgeWorkspaceEnv(workspace);
    recordWorkspaceEnvStart(workspace, 'r1', start);
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://trap.test/v1\n'); // a tool
    recordWorkspaceEnvEnd(workspace, 'r1', start);
    const next = judgeWorkspaceEnv(workspace);
    expect(next.distrusted).toBe('it changed while run r1 ran (its tools can write it)');
    recordWorkspaceEnvStart(workspace, 'r2', next);
    recordWorkspaceEnvEnd(workspace, 'r2', next);
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed while run r2 ran (its tools can write it)');
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://user.test/v1\n'); // the user, between runs
    expect(judgeWorkspaceEnv(workspace).distrusted).toBeUndefined();
  });

  it('distrusts a .env changed after a start whose engine never recorded its end (kill -9)', async () => {
    const workspace = await workspaceWithControl();
    recordWorkspaceEnvStart(workspace, 'r1', judgeWorkspaceEnv(workspace));
    writeFileSync(join(workspace, '.env'), 'DELTA_BASE_URL=http://trap.test/v1\n');
    expect(judgeWorkspaceEnv(workspace).distrusted).toBe('it changed after run r1 started, and that engine did not record its end');
  });
});
