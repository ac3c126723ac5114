import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeltaError } from '@delta/errors';
import { cleanupTempDirs, createTempAgent, createTempDir, createTempWorkspace, writeFiles } from '@delta/testkit';
import { describeModelSettings, resolveModelSettings } from './model-settings.js';

afterAll(cleanupTempDirs);

describe('resolveModelSettings (.env priority: workspace, agent, project root, process environment)', () => {
  it('uses a key present only in the agent .env', async () => {
    const agent = await createTempAgent({ files: { '.env': 'DELTA_API_KEY=sk-agent\nDELTA_BASE_URL=http://agent.test/v1\n' } });
    const workspace = await createTempWorkspace();
    const settings = resolveModelSettings(workspace, agent, {});
    expect(settings).toEqual({
      apiKey: 'sk-agent',
      apiKeySource: join(agent, '.env'),
      apiKeyName: 'DELTA_API_KEY',
      baseUrl: 'http://agent.test/v1',
      baseUrlSource: join(agent, '.env'),
    });
  });

  it('lets the workspace .env override the process environment and the agent .env', async () => {
    const agent = await createTempAgent({ files: { '.env': 'DELTA_API_KEY=sk-agent\n' } });
    const workspace = await createTempWorkspace({ files: { '.env': 'DELTA_API_KEY=sk-workspace\n' } });
    const settings = resolveModelSettings(workspace, agent, { DELTA_API_KEY: 'sk-process', OPENAI_BASE_URL: 'http://process.test/v1' });
    expect(settings.apiKey).toBe('sk-workspace');
    expect(settings.apiKeySource).toBe(join(workspace, '.env'));
    expect(settings.baseUrl).toBe('http://process.test/v1');
    expect(settings.baseUrlSource).toBe('environment');
  });

  it('reads the project root .env (the nearest directory with .git) below the agent and workspace files', async () => {
    const repository = await createTempDir('delta-repo-');
    execFileSync('git', ['init', '-q', repository]);
    await writeFiles(repository, {
      '.env': 'OPENAI_API_KEY=sk-root\nOPENAI_API_URL=http://root.test/v1\n',
      'agents/a/agent.yaml': 'name: a\n',
    });
    const workspace = await createTempWorkspace();
    const fromRoot = resolveModelSettings(workspace, join(repository, 'agents/a'), { DELTA_API_KEY: 'sk-process' });
    expect(fromRoot).toMatchObject({
      apiKey: 'sk-root',
      apiKeyName: 'OPENAI_API_KEY',
      apiKeySource: join(repository, '.env'),
      baseUrl: 'http://root.test/v1',
    });

    await writeFiles(repository, { 'agents/a/.env': 'DELTA_API_KEY=sk-agent\n' });
    expect(resolveModelSettings(workspace, join(repository, 'agents/a'), {}).apiKey).toBe('sk-agent');
  });

  it('falls back to the process environment, and ignores empty values', async () => {
    const agent = await createTempAgent({ files: { '.env': 'DELTA_API_KEY=\n' } });
    const settings = resolveModelSettings(await createTempWorkspace(), agent, { OPENAI_API_KEY: 'sk-env' });
    expect(settings).toMatchObject({ apiKey: 'sk-env', apiKeySource: 'environment', apiKeyName: 'OPENAI_API_KEY', baseUrl: undefined });
  });

  it('says where to put the key when there is none', async () => {
    try {
      resolveModelSettings(await createTempWorkspace(), await createTempAgent(), {});
      expect.unreachable();
    } catch (error) {
      expect(DeltaError.isInstance(error) && error.kind).toBe('configuration');
      expect((error as DeltaError).message).toMatch(/DELTA_API_KEY/);
      expect((error as DeltaError).hint).toMatch(/\.env file in the workspace, the agent directory or the project root/);
    }
  });

  it('describes where the key and base URL came from, never the key', async () => {
    const agent = await createTempAgent({ files: { '.env': 'DELTA_API_KEY=sk-very-secret\n' } });
    const line = describeModelSettings(resolveModelSettings(await createTempWorkspace(), agent, { DELTA_BASE_URL: 'http://x.test/v1' }));
    expect(line).toBe(`API key: DELTA_API_KEY from ${join(agent, '.env')}; base URL http://x.test/v1 from the process environment`);
    expect(line).not.toContain('sk-very-secret');
  });

  it('needs no key when a base URL is set, and says under -v that none is sent', async () => {
    const agent = await createTempAgent({ files: { '.env': 'DELTA_BASE_URL=http://localhost:11434/v1\n' } });
    const settings = resolveModelSettings(await createTempWorkspace(), agent, {});
    expect(settings).toMatchObject({ apiKey: undefined, baseUrl: 'http://localhost:11434/v1', baseUrlSource: join(agent, '.env') });
    expect(describeModelSettings(settings)).toBe(
      `API key: none (neither DELTA_API_KEY nor OPENAI_API_KEY is set, so no key is sent); base URL http://localhost:11434/v1 from ${join(agent, '.env')}`,
    );
    const explicit = resolveModelSettings(await createTempWorkspace(), await createTempAgent(), {}, { baseUrl: 'http://x.test/v1' });
    expect(describeModelSettings(explicit)).toBe(
      'API key: none (neither DELTA_API_KEY nor OPENAI_API_KEY is set, so no key is sent); base URL http://x.test/v1 from the baseUrl option',
    );
  });
});
