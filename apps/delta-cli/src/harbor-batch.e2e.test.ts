// `delta batch DIR` over a directory of Harbor task directories (issue 44 item 2): a broken task is refused
// (exit 2) before anything runs, naming it, its files and fields; `--image-map` is read and checked.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { runDelta } from './test-support.js';

afterEach(() => cleanupTempDirs());

function writeTask(root: string, id: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, id, path)), { recursive: true });
    writeFileSync(join(root, id, path), content);
  }
}

const good = (id: string) => ({
  'instruction.md': `Do ${id}.\n`,
  'task.toml': `[agent]\ntimeout_sec = 60.0\n[environment]\ndocker_image = "registry.lab:5000/tb/${id}:1"\n`,
  'tests/test.sh': 'true\n',
});

describe('delta batch DIR (Harbor task directories)', () => {
  it('refuses a broken task before anything runs, with every problem, and checks --image-map', async () => {
    const root = await createTempDir('harbor-');
    writeTask(root, 'good', good('good'));
    writeTask(root, 'broken', { 'instruction.md': 'Do it.\n', 'task.toml': '[verifier]\ntimeout_sec = "x"\n' });
    writeTask(root, 'dockerfile-only', { ...good('dockerfile-only'), 'task.toml': '', 'environment/Dockerfile': 'FROM debian\n' });
    const agent = await createTempAgent();
    const elsewhere = await createTempDir('harbor-files-');
    const out = join(elsewhere, 'out');

    const refused = await runDelta(['batch', root, '--agent', agent, '--out', out]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`The task directory ${root} has 4 configuration errors`);
    expect(refused.stderr).toContain(`${root}/broken/task.toml (verifier.timeout_sec): the task "broken": expected a number of seconds`);
    expect(refused.stderr).toContain(`${root}/broken/tests/test.sh: the task "broken": there is no tests/test.sh.`);
    expect(refused.stderr).toContain(`${root}/broken/task.toml (environment.docker_image): the task "broken": the task names no image`);
    expect(refused.stderr).toContain('the task "dockerfile-only": the task\'s environment is only a Dockerfile');
    expect(refused.stderr).toContain('docker save delta-task-dockerfile-only -o delta-task-dockerfile-only.tar');
    expect(refused.stderr).not.toContain('"good"');
    expect(existsSync(out)).toBe(false);

    const imageMap = join(elsewhere, 'images.yaml');
    writeFileSync(imageMap, 'dockerfile only: x\n');
    const badMap = await runDelta(['batch', root, '--agent', agent, '--out', out, '--image-map', imageMap]);
    expect(badMap.exitCode).toBe(2);
    expect(badMap.stderr).toContain(`${imageMap}:1:1 dockerfile only: is neither a task name`);

    const tasksFile = join(elsewhere, 'tasks.jsonl');
    writeFileSync(tasksFile, '{"id": "a", "message": "m"}\n');
    const onJsonl = await runDelta(['batch', tasksFile, '--agent', agent, '--out', out, '--image-map', imageMap]);
    expect(onJsonl.exitCode).toBe(2);
    expect(onJsonl.stderr).toContain(`--image-map gives images to Harbor task directories, but ${tasksFile} is a TASKS file.`);
  });
});
