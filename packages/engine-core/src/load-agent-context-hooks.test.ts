import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { loadAgent } from './load-agent.js';
import { configurationError } from './load-agent.test-support.js';

afterAll(cleanupTempDirs);

describe('hostile input', () => {
  it('turns an alias bomb into a configuration error, not a raw exception', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefg'.split('').map((key, index) => `${key}: &${key} [${Array(10).fill(`*${'abcdefg'[index]}`).join(', ')}]`),
    ];
    const home = await createTempAgent({ agentYaml: `name: a\nllm: {model: m}\n${bomb.join('\n')}\n` });
    expect(configurationError(home).message).toMatch(/agent\.yaml could not be read as YAML: /);
  });

  it('reports a context.yaml or hooks.yaml that is a directory as a configuration error', async () => {
    const context = await createTempAgent({ contextYaml: null });
    mkdirSync(join(context, 'context.yaml'));
    expect(configurationError(context).message).toMatch(/context\.yaml is a directory, not a configuration file/);
    const hooks = await createTempAgent();
    mkdirSync(join(hooks, 'hooks.yaml'));
    expect(configurationError(hooks).message).toMatch(/hooks\.yaml is a directory, not a configuration file/);
  });
});

describe('context.yaml and hooks.yaml', () => {
  it('requires context.yaml, with the default content as the fix', async () => {
    const error = configurationError(await createTempAgent({ contextYaml: null }));
    expect(error.message).toMatch(/^context\.yaml not found in /);
    expect(error.message).toContain("path: '${AGENT_HOME}/system_prompt.md'");
    expect(error.message).toContain('type: journal');
  });

  it('loads hooks.yaml by convention', async () => {
    const agent = loadAgent(await createTempAgent({ hooksYaml: 'on_run_end:\n  command: [echo, done]\n' }));
    expect(agent.hooks.on_run_end?.command).toEqual(['echo', 'done']);
    expect(agent.hooksFile).toMatch(/hooks\.yaml$/);
  });

  it('takes legacy lifecycle_hooks from agent.yaml with a warning when hooks.yaml is absent', async () => {
    const home = await createTempAgent({
      agentYaml: 'name: a\nllm: {model: m}\nlifecycle_hooks:\n  on_run_end:\n    command: [echo, legacy]\n',
    });
    const agent = loadAgent(home);
    expect(agent.hooks.on_run_end?.command).toEqual(['echo', 'legacy']);
    expect(agent.warnings.map((warning) => warning.message)).toContainEqual(
      expect.stringMatching(/^\[DEPRECATION WARNING\] lifecycle_hooks/),
    );
  });

  it('reports a wrong hooks.yaml as a configuration error', async () => {
    const error = configurationError(await createTempAgent({ hooksYaml: 'on_run_end:\n  command: 5\n' }));
    expect(error.message).toMatch(/hooks\.yaml/);
  });
});
