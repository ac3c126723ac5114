import { existsSync, realpathSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { cleanupTempDirs, createTempAgent, createTempDir, createTempWorkspace, defaultContextYaml, writeFiles } from './index.js';

afterAll(cleanupTempDirs);

describe('temp agents and workspaces', () => {
  it('creates a minimal agent with the spec default context.yaml', async () => {
    const agent = await createTempAgent();
    expect(agent.startsWith(realpathSync(tmpdir()))).toBe(true);
    expect(parse(await readFile(join(agent, 'agent.yaml'), 'utf8'))).toEqual({ name: 'test-agent', llm: { model: 'fake-model' } });
    expect(await readFile(join(agent, 'system_prompt.md'), 'utf8')).toMatch(/test agent/);
    const context = parse(await readFile(join(agent, 'context.yaml'), 'utf8'));
    expect(context.sources).toEqual([
      { type: 'file', id: 'system_prompt', path: '${AGENT_HOME}/system_prompt.md' },
      { type: 'file', id: 'workspace_guide', path: '${CWD}/DELTA.md', on_missing: 'skip' },
      { type: 'journal', id: 'conversation_history' },
    ]);
    expect(await readFile(join(agent, 'context.yaml'), 'utf8')).toBe(defaultContextYaml);
    expect(existsSync(join(agent, 'hooks.yaml'))).toBe(false);
  });

  it('takes agent.yaml and hooks.yaml as objects or text, extra files with modes, and no context.yaml', async () => {
    const agent = await createTempAgent({
      agentYaml: { name: 'tooled', llm: { model: 'm' }, tools: [{ name: 'echo', exec: 'echo ${text}' }] },
      systemPrompt: 'Be brief.',
      contextYaml: null,
      hooksYaml: 'pre_llm_request:\n  command: ./hook.sh\n',
      files: { 'tools/run.sh': { content: '#!/bin/sh\necho hi\n', mode: 0o755 }, 'notes/a.txt': 'a' },
    });
    expect(parse(await readFile(join(agent, 'agent.yaml'), 'utf8')).tools[0].exec).toBe('echo ${text}');
    expect(await readFile(join(agent, 'system_prompt.md'), 'utf8')).toBe('Be brief.');
    expect(existsSync(join(agent, 'context.yaml'))).toBe(false);
    expect(await readFile(join(agent, 'hooks.yaml'), 'utf8')).toBe('pre_llm_request:\n  command: ./hook.sh\n');
    expect((await stat(join(agent, 'tools/run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(agent, 'notes/a.txt'), 'utf8')).toBe('a');
  });

  it('refuses files that would land outside the directory', async () => {
    const directory = await createTempDir();
    await expect(writeFiles(directory, { '../escape.txt': 'x' })).rejects.toThrow(/must be a relative path inside/);
    await expect(writeFiles(directory, { '/etc/x': 'x' })).rejects.toThrow(/must be a relative path inside/);
  });

  it('removes everything it created on cleanup', async () => {
    const directories = [
      await createTempDir('delta-cleanup-'),
      await createTempAgent(),
      await createTempWorkspace({ files: { 'DELTA.md': '# guide' } }),
    ];
    expect(await readFile(join(directories[2]!, 'DELTA.md'), 'utf8')).toBe('# guide');
    expect(directories.every((directory) => existsSync(directory))).toBe(true);
    await cleanupTempDirs();
    expect(directories.some((directory) => existsSync(directory))).toBe(false);
  });
});
