import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { ConfigurationError, ConfigurationErrors } from '@delta/errors';
import { SAFE_ID, type Task } from './dataset.js';
import { type HarborTaskProblem, parseHarborTaskToml } from './harbor-task-toml.js';
import { type LoadedImageMap, mappedImage } from './image-map.js';

/** How a directory of Harbor task directories is read. */
export interface HarborTasksOptions {
  /** `--image-map`: an image for a task by its name or its Dockerfile's hash, over its `docker_image`. */
  imageMap?: LoadedImageMap;
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();
const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** Whether `directory` is one Harbor task (it holds task.toml or instruction.md), not a directory of them. */
export function isHarborTask(directory: string): boolean {
  return existsSync(join(directory, 'task.toml')) || existsSync(join(directory, 'instruction.md'));
}

/** The task directories of a dataset directory, by name (hidden ones left out); the directory itself when it is one task. */
export function harborTaskDirectories(root: string): string[] {
  if (isHarborTask(root)) return [root];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.') && isDirectory(join(root, entry.name)))
    .map((entry) => join(root, entry.name))
    .sort();
}

/**
 * A Docker reference as Docker reads it: a name without a registry host (`alexgshaw/task:tag`, `ubuntu`) is
 * Docker Hub's, whose API is at registry-1.docker.io (one-part names under `library/`).
 */
export function dockerReference(name: string): string {
  const first = name.split('/')[0]!;
  if (name.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost')) return name;
  return `registry-1.docker.io/${name.includes('/') ? '' : 'library/'}${name}`;
}

function buildHint(id: string, directory: string, dockerfileSha256: string): string {
  const name = `delta-task-${id.toLowerCase()}`;
  return (
    `Delta does not build images. Build the task's image and export it to an archive, e.g.\n` +
    `  docker build -t ${name} ${join(directory, 'environment')} && docker save ${name} -o ${name}.tar\n` +
    `  (or podman build -t ${name} ... && podman save ${name} -o ${name}.tar, or buildah bud -t ${name} ... && buildah push ${name} oci-archive:${name}.tar)\n` +
    `then map the task to it in a file given with --image-map, by its name or by its Dockerfile's hash:\n` +
    `  ${id}: /path/to/${name}.tar\n  "sha256:${dockerfileSha256}": /path/to/${name}.tar`
  );
}

/** Reads one Harbor task directory: the task, or every problem with it. */
export function readHarborTask(directory: string, options: HarborTasksOptions = {}): { task?: Task; problems: HarborTaskProblem[] } {
  const id = basename(directory);
  const problems: HarborTaskProblem[] = [];
  if (!SAFE_ID.test(id)) {
    problems.push({
      file: directory,
      problem: `the directory name cannot be a task id: use letters, digits, ".", "_" and "-" (up to 100, not starting with ".").`,
      hint: 'The task id names the run directories OUT/<id>/<model>/<k>/: rename the directory.',
    });
  }
  const instructionFile = join(directory, 'instruction.md');
  const message = isFile(instructionFile) ? readFileSync(instructionFile, 'utf8') : undefined;
  if (message === undefined || message.trim() === '') {
    problems.push({
      file: instructionFile,
      problem: message === undefined ? 'there is no instruction.md.' : 'instruction.md is empty.',
      hint: "instruction.md holds the task's message: what the agent is asked to do.",
    });
  }
  const tomlFile = join(directory, 'task.toml');
  const toml = isFile(tomlFile) ? parseHarborTaskToml(readFileSync(tomlFile, 'utf8'), tomlFile) : undefined;
  if (toml === undefined) {
    problems.push({
      file: tomlFile,
      problem: 'there is no task.toml.',
      hint: 'task.toml gives the task\'s [metadata], [agent] and [verifier] timeout_sec, and [environment] docker_image = "host/name:tag".',
    });
  } else {
    problems.push(...toml.problems);
  }
  const tests = join(directory, 'tests');
  if (!isFile(join(tests, 'test.sh'))) {
    problems.push({
      file: join(tests, 'test.sh'),
      problem: 'there is no tests/test.sh.',
      hint: "tests/test.sh is the task's verifier: it checks the agent's work and writes the reward.",
    });
  }
  const dockerfile = join(directory, 'environment', 'Dockerfile');
  const dockerfileSha256 = isFile(dockerfile) ? createHash('sha256').update(readFileSync(dockerfile)).digest('hex') : undefined;
  const settings = toml?.settings;
  const prebuilt = settings?.docker_image === undefined ? undefined : dockerReference(settings.docker_image);
  const image = mappedImage(options.imageMap, id, dockerfileSha256) ?? prebuilt;
  // A task.toml that is not TOML says nothing about docker_image: only one that is can be missing it.
  if (image === undefined && settings !== undefined) {
    problems.push({
      file: tomlFile,
      field: 'environment.docker_image',
      problem:
        dockerfileSha256 === undefined
          ? 'the task names no image: task.toml has no [environment] docker_image, and there is no environment/Dockerfile.'
          : `the task's environment is only a Dockerfile (${dockerfile}, sha256:${dockerfileSha256}), with no [environment] docker_image.`,
      hint:
        dockerfileSha256 === undefined
          ? 'Give [environment] docker_image = "host/name:tag" in task.toml, or map the task to an image with --image-map.'
          : buildHint(id, directory, dockerfileSha256),
    });
  }
  if (problems.length > 0 || settings === undefined || message === undefined || image === undefined) return { problems };
  const { docker_image: _image, ...fields } = settings;
  const solution = join(directory, 'solution', 'solve.sh');
  const task: Task = { id, message, ...fields, tests, ...(isFile(solution) ? { solution } : {}), image };
  return { task, problems };
}

/** One problem as an error: the file (and line), the field, the task and the fix. */
function problemError(id: string, problem: HarborTaskProblem): ConfigurationError {
  const where = `${problem.file}${problem.line === undefined ? '' : `:${problem.line}`}${problem.field === undefined ? '' : ` (${problem.field})`}`;
  return new ConfigurationError(`${where}: the task "${id}": ${problem.problem}`, {
    code: 'DATASET_INVALID',
    file: problem.file,
    ...(problem.field === undefined ? {} : { field: problem.field }),
    hint: problem.hint,
  });
}

/**
 * Reads a directory of Harbor task directories (Terminal-Bench 2's format), or one task directory, as
 * tasks: each task's id is its directory's name, its message instruction.md, its settings task.toml's,
 * its `tests` its tests/ directory, its `solution` solution/solve.sh, its image the image map's or
 * `[environment] docker_image`. Every task is checked first: every problem of every task is reported
 * together (DATASET_INVALID), naming the task, the file and the field, before anything runs.
 */
export function readHarborTasks(directory: string, options: HarborTasksOptions = {}): Task[] {
  const root = resolve(directory);
  if (!isDirectory(root)) {
    throw new ConfigurationError(`The task directory ${root} does not exist.`, {
      code: 'DATASET_INVALID',
      file: root,
      hint: 'Pass a directory of Harbor task directories (each with instruction.md, task.toml and tests/test.sh).',
    });
  }
  const tasks: Task[] = [];
  const errors: ConfigurationError[] = [];
  for (const taskDirectory of harborTaskDirectories(root)) {
    const read = readHarborTask(taskDirectory, options);
    errors.push(...read.problems.map((problem) => problemError(basename(taskDirectory), problem)));
    if (read.task) tasks.push(read.task);
  }
  if (errors.length === 1) throw errors[0]!;
  if (errors.length > 1) throw new ConfigurationErrors(`The task directory ${root}`, errors);
  if (tasks.length === 0) {
    throw new ConfigurationError(`${root} holds no task directory.`, {
      code: 'DATASET_INVALID',
      file: root,
      hint: 'Each task is a directory of its own in it, with instruction.md, task.toml and tests/test.sh (Harbor, Terminal-Bench 2).',
    });
  }
  return tasks;
}
