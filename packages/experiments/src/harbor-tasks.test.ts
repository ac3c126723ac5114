// Harbor task directories (Terminal-Bench 2's format) as a dataset (issue 44 item 2): real directories in
// temp dirs, read by the loader; a broken task is refused with every problem of every task.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTestResources, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { readHarborTasks } from './harbor-tasks.js';
import { goodTaskFiles, writeHarborTask } from './harbor-tasks.test-support.js';
import { readImageMap } from './image-map.js';

afterEach(cleanupTestResources);

/** The error `action` throws (it must throw one). */
function thrown(action: () => unknown): Error & { code?: string; file?: string; field?: string; hint?: string } {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error, got none');
}

describe('a directory of Harbor task directories', () => {
  it('gives each task its message, metadata, timeouts, verifier, limits, tests, oracle and image', async () => {
    const root = await createTempDir('harbor-');
    const toml = [
      '[metadata]',
      'difficulty = "hard"',
      'tags = ["git", "shell"]',
      '[agent]',
      'timeout_sec = 900.0',
      '[verifier]',
      'timeout_sec = 180',
      'env = { OPENAI_API_KEY = "${OPENAI_API_KEY}", MODE = "strict" }',
      '[environment]',
      'build_timeout_sec = 600.0',
      'docker_image = "alexgshaw/fix-git:20251031"',
      'cpus = 2',
      'memory_mb = 4096',
      'storage_mb = 10240',
    ].join('\n');
    writeHarborTask(root, 'fix-git', goodTaskFiles('fix-git', { 'instruction.md': 'Fix the repository in /app.\n', 'task.toml': toml }));
    writeHarborTask(root, 'no-oracle', goodTaskFiles('no-oracle', { 'solution/solve.sh': undefined }));
    writeFileSync(join(root, 'README.md'), 'not a task\n');
    mkdirSync(join(root, '.git'));

    const [fixGit, noOracle, ...rest] = readHarborTasks(root);
    expect(rest).toEqual([]);
    expect(fixGit).toEqual({
      id: 'fix-git',
      message: 'Fix the repository in /app.\n',
      metadata: { difficulty: 'hard', tags: ['git', 'shell'] },
      timeout_sec: 900,
      verifier: { timeout_sec: 180, env: { OPENAI_API_KEY: '${OPENAI_API_KEY}', MODE: 'strict' } },
      limits: { cpus: 2, memory: 4096 * 1024 * 1024, layer: 10240 * 1024 * 1024 },
      tests: join(root, 'fix-git', 'tests'),
      solution: join(root, 'fix-git', 'solution', 'solve.sh'),
      // A Docker Hub name, as Docker reads it.
      image: 'registry-1.docker.io/alexgshaw/fix-git:20251031',
    });
    expect(noOracle).toMatchObject({ id: 'no-oracle', image: 'registry.lab:5000/tb/no-oracle:1' });
    expect(noOracle).not.toHaveProperty('solution');
  });

  it('refuses a directory with a broken task, naming the task, each file and field, every problem', async () => {
    const root = await createTempDir('harbor-');
    writeHarborTask(root, 'good-1', goodTaskFiles('good-1'));
    writeHarborTask(root, 'good-2', goodTaskFiles('good-2'));
    writeHarborTask(root, 'broken', {
      'instruction.md': '  \n',
      'task.toml': '[agent]\ntimeout_sec = "x"\n[verifier]\nenv = { A = 1 }\n[environment]\ndocker_image = "r.lab/x:1"\nmemory_mb = 1.5\n',
    });
    const error = thrown(() => readHarborTasks(root));
    expect(error.code).toBe('DATASET_INVALID');
    const task = join(root, 'broken');
    for (const line of [
      `${task}/instruction.md: the task "broken": instruction.md is empty.`,
      `${task}/task.toml (agent.timeout_sec): the task "broken": expected a number of seconds, found the string "x".`,
      `${task}/task.toml (verifier.env.A): the task "broken": expected a string, found number 1.`,
      `${task}/task.toml (environment.memory_mb): the task "broken": expected a whole number of MiB, found number 1.5.`,
      `${task}/tests/test.sh: the task "broken": there is no tests/test.sh.`,
    ]) {
      expect(error.message).toContain(line);
    }
    expect(error.message).toContain('has 5 configuration errors');
    expect(error.message).not.toContain('good-');
  });

  it('quotes the line of a task.toml that is not TOML, and names a task without instruction.md or task.toml', async () => {
    const root = await createTempDir('harbor-');
    writeHarborTask(root, 'bad-toml', goodTaskFiles('bad-toml', { 'task.toml': '[agent]\ntimeout_sec = \n' }));
    writeHarborTask(root, 'empty', { 'tests/test.sh': 'true\n' });
    const error = thrown(() => readHarborTasks(root));
    expect(error.message).toContain(
      `${root}/bad-toml/task.toml:2: the task "bad-toml": is not TOML: invalid value at line 2, column 15: "timeout_sec = ".`,
    );
    expect(error.message).toContain(`${root}/empty/instruction.md: the task "empty": there is no instruction.md.`);
    expect(error.message).toContain(`${root}/empty/task.toml: the task "empty": there is no task.toml.`);
  });

  it('refuses a task whose environment is only a Dockerfile, saying how to build and export an image and map it', async () => {
    const root = await createTempDir('harbor-');
    const dockerfile = 'FROM debian:bookworm\nRUN apt-get install -y git\n';
    const toml = '[agent]\ntimeout_sec = 60.0\n[environment]\ncpus = 1\n';
    writeHarborTask(root, 'built-here', goodTaskFiles('built-here', { 'task.toml': toml, 'environment/Dockerfile': dockerfile }));
    const hash = createHash('sha256').update(dockerfile).digest('hex');

    const error = thrown(() => readHarborTasks(root));
    expect(error).toMatchObject({
      code: 'DATASET_INVALID',
      file: join(root, 'built-here', 'task.toml'),
      field: 'environment.docker_image',
    });
    expect(error.message).toContain(`the task "built-here": the task's environment is only a Dockerfile`);
    expect(error.message).toContain(`sha256:${hash}), with no [environment] docker_image.`);
    expect(error.hint).toContain(`docker build -t delta-task-built-here ${join(root, 'built-here', 'environment')}`);
    expect(error.hint).toContain('docker save delta-task-built-here -o delta-task-built-here.tar');
    expect(error.hint).toContain('podman save');
    expect(error.hint).toContain('--image-map');
    expect(error.hint).toContain(`"sha256:${hash}": /path/to/delta-task-built-here.tar`);
  });

  it("takes images from --image-map, by task name or by Dockerfile hash, over docker_image; paths are the map file's", async () => {
    const root = await createTempDir('harbor-');
    const noImage = '[agent]\ntimeout_sec = 60.0\n';
    writeHarborTask(root, 'by-name', goodTaskFiles('by-name'));
    writeHarborTask(root, 'by-hash', goodTaskFiles('by-hash', { 'task.toml': noImage, 'environment/Dockerfile': 'FROM scratch\n' }));
    writeHarborTask(root, 'unmapped', goodTaskFiles('unmapped'));
    const hash = createHash('sha256').update('FROM scratch\n').digest('hex');
    const maps = await createTempDir('maps-');
    mkdirSync(join(maps, 'images'));
    writeFileSync(join(maps, 'built.tar'), 'an archive');
    const yamlMap = join(maps, 'images.yaml');
    writeFileSync(yamlMap, `by-name: images:by-name\n"sha256:${hash}": built.tar\nnot-in-this-dataset: r.lab/x:1\n`);
    const jsonMap = join(maps, 'images.json');
    writeFileSync(
      jsonMap,
      JSON.stringify({ 'by-name': 'registry.lab:5000/mine/by-name:2', [`sha256:${hash}`]: 'registry.lab:5000/mine/built:1' }),
    );

    const images = (map: string) =>
      Object.fromEntries(readHarborTasks(root, { imageMap: readImageMap(map) }).map((task) => [task.id, task.image]));
    expect(images(yamlMap)).toEqual({
      'by-hash': join(maps, 'built.tar'),
      'by-name': `${join(maps, 'images')}:by-name`,
      unmapped: 'registry.lab:5000/tb/unmapped:1',
    });
    expect(images(jsonMap)).toEqual({
      'by-hash': 'registry.lab:5000/mine/built:1',
      'by-name': 'registry.lab:5000/mine/by-name:2',
      unmapped: 'registry.lab:5000/tb/unmapped:1',
    });
    // Without the map, by-hash has only its Dockerfile.
    expect(thrown(() => readHarborTasks(root)).message).toContain('the task "by-hash": the task\'s environment is only a Dockerfile');

    writeFileSync(yamlMap, 'by name: x\n');
    expect(thrown(() => readImageMap(yamlMap))).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(`${yamlMap}:1:1 by name: is neither a task name`),
    });
  });
});
