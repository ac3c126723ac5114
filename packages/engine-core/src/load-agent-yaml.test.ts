import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeltaError } from '@delta/errors';
import { cleanupTempDirs, createTempAgent, createTempDir, defaultContextYaml, writeFiles } from '@delta/testkit';
import { toFunctionTool } from '@delta/tool-expander';
import { loadAgent } from './load-agent.js';
import { agentWithImports, configurationError } from './load-agent.test-support.js';

afterAll(cleanupTempDirs);

describe('agent.yaml', () => {
  it('loads name, llm with pass-through parameters, max_iterations and tools', async () => {
    const home = await createTempAgent({
      agentYaml: {
        name: 'a',
        version: '1.0.0',
        description: 'd',
        llm: { model: 'gpt-4o', temperature: 0.2, max_tokens: 100, top_p: 0.9 },
        system_prompt: 'system_prompt.md',
        max_iterations: 7,
        tools: [{ name: 'greet', description: 'Greets.', exec: 'echo -- ${text}' }],
      },
    });
    const agent = loadAgent(home);
    expect(agent.config.llm).toEqual({ model: 'gpt-4o', temperature: 0.2, max_tokens: 100, top_p: 0.9 });
    expect(agent.config.max_iterations).toBe(7);
    expect(agent.tools.map((tool) => tool.name)).toEqual(['greet']);
    expect(agent.hooks).toEqual({});
    expect(agent.warnings).toEqual([]);
  });

  it('warns about unknown keys by name, with line and column, and still loads', async () => {
    const home = await createTempAgent({
      agentYaml: 'name: a\nllm:\n  model: m\nmodle: typo\ntools:\n  - name: t\n    description: T.\n    exec: echo hi\n    colour: red\n',
    });
    const agent = loadAgent(home);
    expect(agent.warnings).toEqual([
      expect.objectContaining({
        file: join(home, 'agent.yaml'),
        line: 4,
        column: 1,
        field: 'modle',
        message: expect.stringContaining('"modle"'),
      }),
      expect.objectContaining({
        file: join(home, 'agent.yaml'),
        line: 9,
        field: 'tools[0].colour',
        message: expect.stringContaining("'colour'"),
      }),
    ]);
  });

  it('refuses a key close to a known one anywhere in the agent, naming it and the suggestion', async () => {
    const tool = await createTempAgent({
      agentYaml: 'name: a\nllm:\n  model: m\ntools:\n  - name: t\n    exec: sleep 5\n    timout_ms: 100\n',
    });
    const toolError = configurationError(tool);
    expect(toolError.message).toBe(
      `${join(tool, 'agent.yaml')}:7:5 tools[0].timout_ms: Unknown tool key 'timout_ms': did you mean 'timeout_ms'?`,
    );
    expect(toolError.hint).toMatch(/^Rename timout_ms to timeout_ms/);

    const top = await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\nmax_iteration: 3\n' });
    expect(configurationError(top).message).toContain(
      `${join(top, 'agent.yaml')}:4:1 max_iteration: unknown key "max_iteration": did you mean "max_iterations"?`,
    );

    const hooks = await createTempAgent({ hooksYaml: 'pre_tool_exection:\n  command: [./gate.sh]\n' });
    const hooksError = configurationError(hooks);
    expect(hooksError.message).toContain(
      `${join(hooks, 'hooks.yaml')}:1:1 pre_tool_exection: unknown hook "pre_tool_exection": did you mean "pre_tool_execution"?`,
    );

    const context = await createTempAgent({ contextYaml: 'sources:\n  - type: journal\n    max_iteration: 3\n' });
    expect(configurationError(context).message).toContain(
      'sources[0].max_iteration: unknown key "max_iteration": did you mean "max_iterations"?',
    );
  });

  it('loads a tool with no description (as the spec examples write them) with no warning, strict too, and sends what it runs', async () => {
    const home = await createTempAgent({
      agentYaml:
        'name: a\nllm:\n  model: m\nimports: [./shared.yaml]\ntools:\n  - name: bare\n    exec: tee -- ${name}\n  - name: shared\n    description: Described here.\n    exec: echo s\n',
      files: {
        'shared.yaml':
          'tools:\n  - name: shared\n    exec: echo s\n  - name: blank\n    description: "  "\n    shell: cat -- ${file} | wc -l\n',
      },
    });
    expect(loadAgent(home).warnings).toEqual([]);
    const agent = loadAgent(home, { strict: true });
    expect(agent.tools.map((tool) => [tool.name, toFunctionTool(tool).function.description])).toEqual([
      ['shared', 'Described here.'],
      ['blank', 'Runs in sh: cat -- ${file} | wc -l'],
      ['bare', 'Runs: tee -- ${name}'],
    ]);
  });

  it('refuses an oversized agent.yaml, and a FIFO as an import or hooks.yaml, naming what each is, without reading it', async () => {
    const { execFileSync } = await import('node:child_process');
    const big = await createTempAgent({ agentYaml: `name: a\nllm:\n  model: m\ndescription: "${'x'.repeat(1024 * 1024)}"\n` });
    const tooBig = configurationError(big);
    expect(tooBig.message).toBe(`${join(big, 'agent.yaml')} is 1.0 MiB; configuration files are capped at 1 MiB`);
    expect(tooBig.hint).toMatch(/Keep large text out of configuration/);

    const piped = await createTempAgent({ agentYaml: agentWithImports(['./tools.yaml']) });
    execFileSync('mkfifo', [join(piped, 'tools.yaml')]);
    // A read would block for ever: the check must come first, or this test hangs.
    expect(configurationError(piped).message).toContain('"./tools.yaml" is a named pipe (FIFO), not a YAML file');

    const hooks = await createTempAgent();
    execFileSync('mkfifo', [join(hooks, 'hooks.yaml')]);
    expect(configurationError(hooks).message).toContain(`${join(hooks, 'hooks.yaml')} is a named pipe (FIFO), not a configuration file`);
  });

  it('makes every warning an error in strict mode, listing each', async () => {
    const home = await createTempAgent({
      agentYaml: 'name: a\nllm:\n  model: m\nowner: me\ntools:\n  - name: t\n    description: T.\n    exec: echo hi\n    colour: red\n',
    });
    expect(loadAgent(home).warnings).toHaveLength(2);
    expect(loadAgent(home, { strict: false }).warnings).toHaveLength(2);
    let error: DeltaError | undefined;
    try {
      loadAgent(home, { strict: true });
    } catch (caught) {
      error = caught as DeltaError;
    }
    expect(error?.kind).toBe('configuration');
    expect(error?.code).toBe('CONFIG_STRICT');
    expect(error?.message).toBe(
      `The agent ${home} has 2 warnings, and strict mode makes every warning an error:\n` +
        `  - ${join(home, 'agent.yaml')}:4:1 owner: unknown key "owner" is ignored (check its spelling and indentation)\n` +
        `  - ${join(home, 'agent.yaml')}:9:5 tools[0].colour: Unknown tool key 'colour' is ignored. Known keys: name, description, exec, shell, command, parameters, stdin, timeout_ms, pass_model_credentials, max_output_bytes, allow_option_values.`,
    );
    expect(error?.hint).toMatch(/--strict/);

    const clean = await createTempAgent();
    expect(loadAgent(clean, { strict: true }).warnings).toEqual([]);
  });

  it('names the file, line, column, field, what was expected and found, and a fix', async () => {
    const home = await createTempAgent({ agentYaml: 'name: a\nllm:\n  model: m\n  temperature: hot\n' });
    const error = configurationError(home);
    expect(error.message).toContain(
      `${join(home, 'agent.yaml')}:4:16 llm.temperature: expected number, received string; found the string "hot"`,
    );
    expect(error.hint).toMatch(/temperature: 0.7/);
  });

  it('says a missing llm.model is required', async () => {
    const error = configurationError(await createTempAgent({ agentYaml: 'name: a\nllm: {}\n' }));
    expect(error.message).toMatch(/agent\.yaml:2:\d+ llm\.model: is required but missing \(expected string\)/);
  });

  it('refuses a system_prompt file that does not exist, at its line', async () => {
    const error = configurationError(await createTempAgent({ agentYaml: 'name: a\nllm: {model: m}\nsystem_prompt: prompt.md\n' }));
    expect(error.message).toMatch(/agent\.yaml:3:16 system_prompt: .*prompt\.md does not exist/);
  });

  it('falls back to config.yaml with a [DEPRECATION WARNING], and warns when both exist', async () => {
    const legacy = await createTempAgent({ files: { 'config.yaml': 'name: legacy\nllm: {model: m}\n' } });
    // createTempAgent writes agent.yaml too: both exist.
    const both = loadAgent(legacy);
    expect(both.config.name).toBe('test-agent');
    expect(both.warnings[0]!.message).toMatch(/^\[DEPRECATION WARNING\] both agent\.yaml and config\.yaml exist/);

    const only = await createTempDir();
    await writeFiles(only, {
      'config.yaml': 'name: legacy\nllm: {model: m}\n',
      'system_prompt.md': 'x',
      'context.yaml': defaultContextYaml,
    });
    const loaded = loadAgent(only);
    expect(loaded.config.name).toBe('legacy');
    expect(loaded.configFile).toBe(join(only, 'config.yaml'));
    expect(loaded.warnings[0]!.message).toMatch(/^\[DEPRECATION WARNING\] config\.yaml is deprecated/);
  });

  it('refuses a directory with no agent.yaml, and a missing agent directory', async () => {
    const empty = await createTempDir();
    expect(configurationError(empty).message).toBe(`No agent.yaml in ${empty}.`);
    expect(configurationError(join(empty, 'nope')).hint).toMatch(/delta init/);
  });

  it('refuses an agent.yaml that is a directory, without a raw EISDIR', async () => {
    const home = await createTempDir();
    mkdirSync(join(home, 'agent.yaml'));
    expect(configurationError(home).message).toMatch(/agent\.yaml is a directory, not a configuration file/);
  });
});
