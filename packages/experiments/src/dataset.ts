import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, normalize, resolve } from 'node:path';
import { ConfigurationError, ConfigurationErrors, formatFieldPath, suggestName } from '@delta/errors';
import { z } from 'zod';
import { linkOnPath } from './no-follow-write.js';

/** A task's verifier: its wall-time limit and the variables it is given. */
export const TaskVerifier = z.strictObject({
  /** The verifier's wall-time limit, in seconds. */
  timeout_sec: z.number().positive().optional(),
  /** Variables set for the verifier, as written (a `${VAR}` in a value is not expanded here). */
  env: z.record(z.string(), z.string()).optional(),
});
export type TaskVerifier = z.infer<typeof TaskVerifier>;

/** What a run of a task may use; each limit is optional. */
export const TaskLimits = z.strictObject({
  /** CPUs, a share where one can be set (task.toml `cpus`). */
  cpus: z.number().positive().optional(),
  /** Memory, in bytes (task.toml `memory_mb` x 1 MiB). */
  memory: z.number().int().positive().optional(),
  /** The size of the run's own copy-on-write layer, in bytes (task.toml `storage_mb` x 1 MiB). */
  layer: z.number().int().positive().optional(),
  /** Processes (and threads) the run may have at once. */
  processes: z.number().int().min(8).optional(),
});
export type TaskLimits = z.infer<typeof TaskLimits>;

/** One line of a TASKS file: what the agent is asked, what its workspace starts with, and what a grader expects. */
export const Task = z.strictObject({
  id: z.string(),
  message: z.string().min(1, 'must not be empty'),
  /** Files written into the run's workspace before it starts, by relative path. */
  files: z.record(z.string(), z.string()).optional(),
  /** A directory copied into the run's workspace before it starts (relative to the TASKS file). */
  workspace: z.string().min(1).optional(),
  /** An OCI image as the run's root (a layout or archive relative to the TASKS file, or a registry reference): over the batch's. */
  image: z.string().min(1).optional(),
  /** Where the workspace is inside the image (absolute; default the image's WorkingDir, else /workspace). */
  workdir: z.string().min(1).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** Whatever the grader compares the run with; given to it as JSON. */
  expected: z.unknown().optional(),
  /**
   * The verifier's directory, placed at /tests for the grader only (relative to the TASKS file on a line;
   * absolute once read). A Harbor task's `tests/`, whose `test.sh` is the verifier.
   */
  tests: z.string().min(1).optional(),
  /** The oracle: a script that solves the task (a Harbor task's `solution/solve.sh`); relative to the TASKS file on a line, absolute once read. */
  solution: z.string().min(1).optional(),
  /** The agent's wall-time limit, in seconds (task.toml `[agent] timeout_sec`). */
  timeout_sec: z.number().positive().optional(),
  /** The verifier's settings (task.toml `[verifier]`). */
  verifier: TaskVerifier.optional(),
  /** What a run of the task may use (task.toml `[environment]` cpus, memory_mb, storage_mb). */
  limits: TaskLimits.optional(),
});
export type Task = z.infer<typeof Task>;

/** A task id becomes a directory name: letters, digits, `.`, `_` and `-`, not starting with `.`. */
export const SAFE_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;

function lineError(file: string, line: number, field: string | undefined, problem: string, hint: string): ConfigurationError {
  return new ConfigurationError(`${file}:${line}${field ? ` (${field})` : ''}: ${problem}`, {
    code: 'DATASET_INVALID',
    file,
    ...(field ? { field } : {}),
    hint,
  });
}

const TASK_HINT =
  'Each line is one JSON object: {"id": "t1", "message": "...", "files": {"a.txt": "..."} or "workspace": "dir", "metadata": {...}, "expected": ...}; ' +
  'for a run in an image also "image", "workdir", "tests", "solution", "timeout_sec", "verifier" and "limits" (docs/experiments.md, "The dataset").';

/** A key a line may not have: named, with the key it most likely meant (`Workdir` -> `workdir`). */
function unknownKeys(keys: readonly string[]): string {
  const named = keys.map((key) => {
    const meant = suggestName(key, Object.keys(Task.shape));
    return meant === undefined ? JSON.stringify(key) : `${JSON.stringify(key)} (did you mean "${meant}"?)`;
  });
  return `${keys.length === 1 ? 'an unknown key' : 'unknown keys'}: ${named.join(', ')}`;
}

/** A relative path that stays inside the workspace (no `..` anywhere, not absolute). */
function insideWorkspace(path: string): boolean {
  if (path === '' || isAbsolute(path) || path.split('/').includes('..')) return false;
  const normal = normalize(path);
  return normal !== '..' && !normal.startsWith('../') && normal !== '.' && !normal.split('/').includes('.delta');
}

/** Why `files:` cannot hold `path` (a tool may have written the TASKS file), or undefined when it can. */
function filePathProblem(path: string, workspace: string | undefined): string | undefined {
  if (path.includes('\u0000')) return 'contains a NUL character, which no file name can hold';
  if (!insideWorkspace(path)) return 'is not inside the workspace';
  const link = workspace === undefined ? undefined : linkOnPath(workspace, normalize(path));
  return link === undefined ? undefined : `cannot be written: in the task workspace directory, ${link}`;
}

/**
 * Parses a TASKS file's text (JSONL: one task per line; blank lines are skipped). Every problem names the
 * file, the line and the field; `workspace` directories are resolved against the file's directory.
 */
export function parseTasks(text: string, file: string): Task[] {
  const tasks: Task[] = [];
  const errors: ConfigurationError[] = [];
  const seen = new Map<string, number>();
  for (const [index, content] of text.split('\n').entries()) {
    if (content.trim() === '') continue;
    try {
      const task = parseTaskLine(content, file, index + 1, seen);
      seen.set(task.id, index + 1);
      tasks.push(task);
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) {
    // Every line's problem in one round, as a compiler lists them; a file of thousands of bad lines lists the first ones.
    const listed = errors.slice(0, MAX_LISTED_ERRORS);
    if (errors.length > listed.length) {
      const more = errors.length - listed.length;
      listed.push(
        new ConfigurationError(`${file}: and ${more} more line${more === 1 ? '' : 's'} with problems, not listed here.`, {
          code: 'DATASET_INVALID',
          file,
          hint: 'Fix the lines above and run again to see the rest.',
        }),
      );
    }
    throw new ConfigurationErrors(`The TASKS file ${file}`, listed);
  }
  if (tasks.length === 0) {
    throw new ConfigurationError(`${file} holds no task.`, { code: 'DATASET_INVALID', file, hint: TASK_HINT });
  }
  return tasks;
}

/** The most problems one error lists. */
const MAX_LISTED_ERRORS = 20;

/** One line of a TASKS file as a task, or the DATASET_INVALID error naming its line and field. */
function parseTaskLine(content: string, file: string, line: number, seen: ReadonlyMap<string, number>): Task {
  let value: unknown;
  // Not safeParseJson: the error names the dataset's line (lineError), which the helper cannot.
  try {
    value = JSON.parse(content);
  } catch (error) {
    throw lineError(file, line, undefined, `not valid JSON (${error instanceof Error ? error.message : String(error)}).`, TASK_HINT);
  }
  const parsed = Task.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? formatFieldPath(issue.path) : undefined;
    const problem = issue.code === 'unrecognized_keys' && issue.path.length === 0 ? unknownKeys(issue.keys) : issue.message;
    throw lineError(file, line, field, `${problem}.`, TASK_HINT);
  }
  const task = parsed.data;
  if (!SAFE_ID.test(task.id)) {
    throw lineError(
      file,
      line,
      'id',
      `the id ${JSON.stringify(task.id)} cannot name a directory: use letters, digits, ".", "_" and "-" (up to 100, not starting with ".").`,
      'The id names the run directories OUT/<id>/<model>/<k>/; for example "task-001".',
    );
  }
  const earlier = seen.get(task.id);
  if (earlier !== undefined) {
    throw lineError(file, line, 'id', `the id "${task.id}" is already used on line ${earlier}.`, 'Every task needs its own id.');
  }
  if (task.workspace?.includes('\u0000')) {
    throw lineError(
      file,
      line,
      'workspace',
      'the directory name contains a NUL character.',
      'Name a directory to copy, relative to the TASKS file.',
    );
  }
  if (task.workspace !== undefined) {
    const directory = resolve(dirname(file), task.workspace);
    if (!existsSync(directory) || !statSync(directory).isDirectory()) {
      throw lineError(file, line, 'workspace', `${directory} is not a directory.`, 'Name a directory to copy, relative to the TASKS file.');
    }
    task.workspace = directory;
  }
  for (const [field, kind] of [
    ['tests', 'directory'],
    ['solution', 'file'],
  ] as const) {
    const named = task[field];
    if (named === undefined) continue;
    const path = resolve(dirname(file), named);
    const stats = named.includes('\u0000') || !existsSync(path) ? undefined : statSync(path);
    if (stats === undefined || (kind === 'directory' ? !stats.isDirectory() : !stats.isFile())) {
      throw lineError(file, line, field, `${path} is not a ${kind}.`, `Name the task's ${field} ${kind}, relative to the TASKS file.`);
    }
    task[field] = path;
  }
  if (task.image !== undefined) {
    // A layout or an archive named relative to the TASKS file; anything else is a registry's reference.
    const local = resolve(dirname(file), task.image.replace(/:[\w][\w.-]*$/, ''));
    if (existsSync(local)) task.image = resolve(dirname(file), task.image);
  }
  if (task.workdir !== undefined && (!task.workdir.startsWith('/') || task.workdir === '/')) {
    throw lineError(
      file,
      line,
      'workdir',
      `"${task.workdir}" is not an absolute directory other than /.`,
      'Give where the workspace goes inside the image, e.g. "/workspace".',
    );
  }
  for (const path of Object.keys(task.files ?? {})) {
    const problem = filePathProblem(path, task.workspace);
    if (problem !== undefined) {
      throw lineError(
        file,
        line,
        `files[${JSON.stringify(path)}]`,
        `the path ${JSON.stringify(path)} ${problem}.`,
        'Give paths relative to the workspace, without "..", outside .delta/, and not through a symbolic link of the task workspace directory.',
      );
    }
  }
  return task;
}

/** Reads and parses a TASKS file. */
export function readTasks(file: string): Task[] {
  const path = resolve(file);
  return parseTasks(readTasksText(path), path);
}

/** A TASKS file's text; DATASET_INVALID when there is no such file. */
export function readTasksText(path: string): string {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new ConfigurationError(`The TASKS file ${path} does not exist.`, {
      code: 'DATASET_INVALID',
      file: path,
      hint: 'Pass a JSONL file with one task per line, or a directory of Harbor task directories.',
    });
  }
  return readFileSync(path, 'utf8');
}
