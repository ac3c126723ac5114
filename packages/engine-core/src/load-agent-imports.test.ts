import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent, createTempDir, defaultContextYaml, writeFiles } from '@delta/testkit';
import { loadAgent } from './load-agent.js';
import { agentWithImports, configurationError } from './load-agent.test-support.js';

afterAll(cleanupTempDirs);

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
