import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeltaError } from '@delta/errors';
import { cleanupTempDirs, createTempAgent, createTempDir, defaultContextYaml, writeFiles } from '@delta/testkit';
import { toFunctionTool } from '@delta/tool-expander';
import { loadAgent } from './load-agent.js';

afterAll(cleanupTempDirs);

/** Runs loadAgent expecting a configuration error, and returns it. */
function configurationError(agentDir: string): DeltaError {
  try {
    loadAgent(agentDir);
  } catch (error) {
    expect(DeltaError.isInstance(error)).toBe(true);
    expect((error as DeltaError).kind).toBe('configuration');
    return error as DeltaError;
  }
  throw new Error('loadAgent did not fail');
}

const agentWithImports = (imports: string[], tools: unknown[] = []) => ({ name: 'importer', llm: { model: 'm' }, imports, tools });

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

describe('imports', () => {
  it('merges imports in order, each file after its own imports, local tools last (last write wins)', async () => {
    const home = await createTempAgent({
      agentYaml: agentWithImports(['./tools/a.yaml', './tools/b.yaml'], [{ name: 'greet', exec: 'echo Bonjour' }]),
      files: {
        'tools/a.yaml': 'imports: [./base.yaml]\ntools:\n  - name: shared\n    exec: echo from-a\n',
        'tools/base.yaml':
          'tools:\n  - name: greet\n    exec: echo Hello\n  - name: shared\n    exec: echo from-base\n  - name: only_base\n    exec: echo base\n',
        'tools/b.yaml': 'tools:\n  - name: shared\n    exec: echo from-b\n',
      },
    });
    const agent = loadAgent(home);
    const byName = Object.fromEntries(agent.tools.map((tool) => [tool.name, tool.command]));
    expect(byName).toEqual({ greet: ['echo', 'Bonjour'], shared: ['echo', 'from-b'], only_base: ['echo', 'base'] });
    expect(agent.imports).toEqual([join(home, 'tools/base.yaml'), join(home, 'tools/a.yaml'), join(home, 'tools/b.yaml')]);
    expect(agent.toolOrigins.get('greet')).toEqual({ file: join(home, 'agent.yaml'), field: 'tools[0]' });
  });

  it('loads a diamond (a file reached by two paths) once', async () => {
    const home = await createTempAgent({
      agentYaml: agentWithImports(['./left.yaml', './right.yaml']),
      files: {
        'left.yaml': 'imports: [./common.yaml]\ntools:\n  - name: left\n    exec: echo left\n',
        'right.yaml': 'imports: [./common.yaml]\ntools:\n  - name: right\n    exec: echo right\n',
        'common.yaml': 'tools:\n  - name: common\n    exec: echo common\n',
      },
    });
    const agent = loadAgent(home);
    expect(agent.tools.map((tool) => tool.name).sort()).toEqual(['common', 'left', 'right']);
    expect(agent.imports.filter((file) => file.endsWith('common.yaml'))).toHaveLength(1);
  });

  it('refuses a cycle of three files, naming all three and where the cycle closes', async () => {
    const home = await createTempAgent({
      agentYaml: agentWithImports(['./one.yaml']),
      files: {
        'one.yaml': 'imports: [./two.yaml]\ntools: []\n',
        'two.yaml': 'imports: [./three.yaml]\ntools: []\n',
        'three.yaml': 'tools: []\nimports:\n  - ./one.yaml\n',
      },
    });
    const error = configurationError(home);
    expect(error.code).toBe('IMPORT_CYCLE');
    expect(error.message).toBe(`${join(home, 'three.yaml')}:3:5 imports[0]: import cycle: one.yaml -> two.yaml -> three.yaml -> one.yaml`);
  });

  it('refuses a file that imports agent.yaml back', async () => {
    const home = await createTempAgent({
      agentYaml: agentWithImports(['./loop.yaml']),
      files: { 'loop.yaml': 'imports: [./agent.yaml]\n' },
    });
    expect(configurationError(home).message).toMatch(/import cycle: agent\.yaml -> loop\.yaml -> agent\.yaml$/);
  });

  it('refuses an import outside the agent directory when the agent is not in a git repository', async () => {
    const outer = await createTempDir();
    await writeFiles(outer, {
      'shared.yaml': 'tools:\n  - name: s\n    exec: echo s\n',
      'agent/agent.yaml': 'name: a\nllm: {model: m}\nimports:\n  - ../shared.yaml\n',
      'agent/context.yaml': defaultContextYaml,
      // Every error is reported at once: without its prompt the agent would have a second one.
      'agent/system_prompt.md': 'You are a test agent.',
    });
    const error = configurationError(join(outer, 'agent'));
    expect(error.code).toBe('IMPORT_OUTSIDE_BOUNDARY');
    expect(error.message).toContain(
      `${join(outer, 'agent/agent.yaml')}:4:5 imports[0]: "../shared.yaml" resolves to ${join(outer, 'shared.yaml')}`,
    );
    expect(error.message).toContain('outside the agent directory');
    expect(error.hint).toMatch(/git repository/);
  });

  it('refuses an absolute import of /etc and a symlink to /etc', async () => {
    const absolute = await createTempAgent({ agentYaml: agentWithImports(['/etc/passwd']) });
    expect(configurationError(absolute).code).toBe('IMPORT_OUTSIDE_BOUNDARY');

    const home = await createTempAgent({ agentYaml: agentWithImports(['./tools/innocent.yaml']) });
    mkdirSync(join(home, 'tools'));
    symlinkSync('/etc/passwd', join(home, 'tools/innocent.yaml'));
    const error = configurationError(home);
    expect(error.code).toBe('IMPORT_OUTSIDE_BOUNDARY');
    expect(error.message).toContain('(through a symlink, to /etc/passwd)');
  });

  it('accepts a shared tools file inside the same git repository, and refuses a symlink out of it', async () => {
    const repository = await createTempDir('delta-repo-');
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['init', '-q', repository]);
    await writeFiles(repository, {
      'shared-tools/file-ops.yaml': 'tools:\n  - name: read_file\n    exec: cat ${path}\n',
      'agents/agent-a/agent.yaml': 'name: a\nllm: {model: m}\nimports:\n  - ../../shared-tools/file-ops.yaml\n',
      'agents/agent-a/context.yaml': defaultContextYaml,
      'agents/agent-a/system_prompt.md': 'You help.\n',
    });
    const agent = loadAgent(join(repository, 'agents/agent-a'));
    expect(agent.tools.map((tool) => tool.name)).toEqual(['read_file']);
    expect(agent.imports).toEqual([join(repository, 'shared-tools/file-ops.yaml')]);

    const outside = await createTempDir();
    writeFileSync(join(outside, 'tools.yaml'), 'tools: []\n');
    symlinkSync(join(outside, 'tools.yaml'), join(repository, 'shared-tools/linked.yaml'));
    writeFileSync(
      join(repository, 'agents/agent-a/agent.yaml'),
      'name: a\nllm: {model: m}\nimports:\n  - ../../shared-tools/linked.yaml\n',
    );
    const error = configurationError(join(repository, 'agents/agent-a'));
    expect(error.message).toContain(`outside the git repository ${repository} that holds the agent`);
  });

  it('says where a missing import was looked for', async () => {
    const home = await createTempAgent({ agentYaml: agentWithImports(['./tools/nope.yaml']) });
    const error = configurationError(home);
    expect(error.code).toBe('IMPORT_NOT_FOUND');
    expect(error.message).toBe(
      `${join(home, 'agent.yaml')}:5:5 imports[0]: "./tools/nope.yaml" does not exist (looked for ${join(home, 'tools/nope.yaml')})`,
    );
    expect(error.hint).toMatch(/relative to the file that lists them/);
  });

  it('points a bad tool in an imported file at that file, line and field', async () => {
    const home = await createTempAgent({
      agentYaml: agentWithImports(['./tools.yaml']),
      files: { 'tools.yaml': 'tools:\n  - name: ok\n    exec: echo ok\n  - name: bad\n    exec: 42\n' },
    });
    const error = configurationError(home);
    expect(error.message).toMatch(new RegExp(`^${join(home, 'tools.yaml')}:5:11 tools\\[1\\]\\.exec: `));
  });

  it('refuses an imported file with neither tools nor imports, and warns about its unknown keys', async () => {
    const empty = await createTempAgent({ agentYaml: agentWithImports(['./empty.yaml']), files: { 'empty.yaml': '' } });
    expect(configurationError(empty).message).toMatch(/empty\.yaml tools: is required but missing/);

    const extra = await createTempAgent({ agentYaml: agentWithImports(['./x.yaml']), files: { 'x.yaml': 'owner: 1\ntools: []\n' } });
    expect(loadAgent(extra).warnings).toContainEqual(expect.objectContaining({ file: join(extra, 'x.yaml'), line: 1, field: 'owner' }));

    const typo = await createTempAgent({ agentYaml: agentWithImports(['./x.yaml']), files: { 'x.yaml': 'tols: 1\ntools: []\n' } });
    expect(configurationError(typo).message).toContain(`${join(typo, 'x.yaml')}:1:1 tols: unknown key "tols": did you mean "tools"?`);
  });

  it('refuses the same tool name twice in one file', async () => {
    const twice = await createTempAgent({
      agentYaml: agentWithImports(
        [],
        [
          { name: 't', exec: 'echo 1' },
          { name: 't', exec: 'echo 2' },
        ],
      ),
    });
    expect(configurationError(twice).message).toMatch(
      /agent\.yaml:\d+:\d+ tools\[1\]\.name: "t" is already defined at tools\[0\] of the same file/,
    );
  });
});
