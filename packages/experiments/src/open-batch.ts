import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { agentFingerprint, type LoadedAgent } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';
import type { ConfigProblem } from '@delta/yaml-config';
import {
  type BatchDefinition,
  type BatchModel,
  claimBatchDefinition,
  definitionDifferences,
  readBatchDefinition,
} from './batch-definition.js';
import { type BatchRunKey, batchDefinitionFile, batchRunDirectory, modelDirectoryName } from './batch-layout.js';
import type { Task } from './dataset.js';
import { openDataset } from './open-dataset.js';
import { readBatchOrFail } from './read-batch.js';
import { loadBatchAgent } from './load-batch-agent.js';
import { lockBatch } from './batch-lock.js';
import { checkConditionName, conditionOfModel } from './batch-condition.js';
import { agentForModel } from './model-entry.js';
import { batchModelOf, modelEntryOf } from './batch-model-entry.js';
import { pickModelEntry, readModelsFile } from './models-file.js';
import { keepAgentVersion } from './agent-versions.js';
import { parseBuiltinGrader } from './builtin-graders.js';
import { resolveJudge } from './model-judge.js';
import { checkTaskWorkspaces, type TaskWorkspaceLimits } from './task-workspace-limits.js';

/** A batch ready to execute runs: its definition, its tasks by id, and its agent loaded once per model. */
export interface OpenedBatch {
  out: string;
  definition: BatchDefinition;
  tasks: ReadonlyMap<string, Task>;
  agents: ReadonlyMap<string, LoadedAgent>;
  /** The condition (agent version) whose runs this command executes (`--condition`); undefined for the batch's first. */
  condition?: string;
}

/** What `delta batch` is given. */
export interface BatchSpec {
  /** A TASKS file (JSONL), or a directory of Harbor task directories (Terminal-Bench 2's format). */
  tasksFile: string;
  agent: string;
  out: string;
  /** Models to run (`--model a,b`); by default agent.yaml's `llm.model`. With `modelsFile`, names of its entries. */
  models?: readonly string[];
  /** A models file (`--models models.yaml`): each entry a model with its own endpoint, key, prices and parameters. */
  modelsFile?: string;
  repeat?: number;
  set?: readonly string[];
  grader?: string;
  /** Run the agent as it is now as this condition of the batch (`--condition NAME`); see docs/experiments.md. */
  condition?: string;
  strict?: boolean;
  onWarning?: (warning: ConfigProblem) => void;
  /** What a task's `workspace:` directory may hold (DEFAULT_TASK_WORKSPACE_LIMITS otherwise); a task over it is refused before any run. */
  taskWorkspaceLimits?: Partial<TaskWorkspaceLimits>;
  /** `--image`: every run's image (an OCI layout, archive or registry reference), unless its task names one. */
  image?: string;
  /** `--image-map`: a file (YAML or JSON) from a Harbor task's name or `sha256:<its Dockerfile's hash>` to its image. */
  imageMap?: string;
}

function loadAgents(
  home: string,
  models: readonly BatchModel[],
  set: readonly string[],
  options: Pick<BatchSpec, 'strict' | 'onWarning' | 'modelsFile'>,
): Map<string, LoadedAgent> {
  const agents = new Map<string, LoadedAgent>();
  for (const [index, model] of models.entries()) {
    // A later condition's entry runs its model with the same agent directory: the agent loaded for that model.
    const shared = model.condition && agents.get(model.condition.model);
    if (shared) {
      agents.set(model.name, shared);
      continue;
    }
    const agent = loadBatchAgent(home, {
      ...(model.override ? { model: model.model ?? model.name } : {}),
      set,
      strict: options.strict === true,
      // The same agent.yaml's warnings once, not once per model.
      ...(index === 0 && options.onWarning ? { onWarning: options.onWarning } : {}),
    });
    const entry = modelEntryOf(model);
    agents.set(model.name, entry === undefined ? agent : agentForModel(agent, entry, options.modelsFile));
  }
  return agents;
}

/** The models of a models file, or those of it `--model` names, in the file's order. */
function modelsFromFile(file: string, names: readonly string[] | undefined): BatchModel[] {
  const loaded = readModelsFile(file);
  const twice = names?.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) {
    throw new ConfigurationError(`--model names ${twice} twice.`, { code: 'USAGE', field: '--model', hint: 'Give each model once.' });
  }
  const chosen = names === undefined || names.length === 0 ? loaded.entries : names.map((name) => pickModelEntry(loaded, name));
  return chosen.map((entry) => batchModelOf(entry));
}

function batchModels(names: readonly string[] | undefined, defaultModel: string): BatchModel[] {
  if (names === undefined || names.length === 0) {
    return [{ name: defaultModel, directory: modelDirectoryName(defaultModel), override: false }];
  }
  const models: BatchModel[] = [];
  for (const name of names) {
    const directory = modelDirectoryName(name);
    const clash = models.find((model) => model.directory === directory);
    if (clash) {
      throw new ConfigurationError(
        clash.name === name
          ? `--model names ${name} twice.`
          : `--model ${clash.name} and ${name} would share the directory "${directory}" under each task.`,
        { code: 'USAGE', field: '--model', hint: 'Give each model once, with names that differ in more than / : or spaces.' },
      );
    }
    models.push({ name, directory, override: true });
  }
  return models;
}

/** A batch this process has prepared: it holds OUT's batch lock until `release()`. */
export interface PreparedBatch extends OpenedBatch {
  release(): void;
  /**
   * Called when the batch stops before its first run (an image that cannot be read, a key missing): when this
   * command recorded it, its definition is removed, so that the command, once fixed, starts it afresh instead
   * of being BATCH_CHANGED against a batch that never ran. A batch recorded before is left as it is.
   */
  forgetIfNew(): void;
}

/**
 * Builds the batch the command asks for and records it in OUT, or checks that OUT holds this same batch.
 * Takes OUT's batch lock first (BATCH_LOCKED while another batch process holds it): the caller releases it.
 */
export function prepareBatch(spec: BatchSpec): PreparedBatch {
  const out = resolve(spec.out);
  const tasksFile = resolve(spec.tasksFile);
  const dataset = openDataset(tasksFile, { imageMap: spec.imageMap });
  const tasks = dataset.tasks();
  // Each task workspace is copied for every run: one over its bound is refused now, before anything runs.
  checkTaskWorkspaces(tasks, spec.taskWorkspaceLimits);
  const set = [...(spec.set ?? [])];
  const condition = spec.condition === undefined ? undefined : checkConditionName(spec.condition);
  // The agent as agent.yaml has it, for its home and default model; per-model copies are loaded below.
  const base = loadBatchAgent(spec.agent, { strict: spec.strict === true });
  const models =
    spec.modelsFile === undefined ? batchModels(spec.models, base.config.llm.model) : modelsFromFile(spec.modelsFile, spec.models);
  const agents = loadAgents(base.home, models, set, spec);
  const asked: BatchDefinition = {
    schema_version: 1,
    tasks_file: tasksFile,
    tasks_sha256: dataset.sha256,
    ...(dataset.taskSha256 === undefined ? {} : { task_sha256: dataset.taskSha256 }),
    ...(dataset.imageMap === undefined ? {} : { image_map: { file: dataset.imageMap.file, sha256: dataset.imageMap.sha256 } }),
    task_ids: tasks.map((task) => task.id),
    agent: base.home,
    models,
    ...(spec.modelsFile === undefined ? {} : { models_file: resolve(spec.modelsFile) }),
    repeat: spec.repeat ?? 1,
    set,
    // --grader, else agent.yaml's `grader:`.
    grader: spec.grader ?? base.config.grader ?? null,
    created_at: new Date().toISOString(),
    agent_fingerprint: agentFingerprint(base),
    ...(spec.image === undefined ? {} : { image: spec.image }),
  };
  if (asked.grader !== null) {
    parseBuiltinGrader(asked.grader);
    // runBatch passes its options here, the runs' environment among them: a judge's key is checked in it.
    resolveJudge(asked.grader, asked.models_file, (spec as { environment?: NodeJS.ProcessEnv }).environment ?? process.env);
  }
  // Everything read and checked: only now is OUT touched, by the one process that holds its lock.
  const lock = lockBatch(out);
  try {
    const recordedNow = readBatchDefinition(out) === undefined;
    const claimed = claimBatchDefinition(out, asked, condition);
    const { definition } = claimed;
    // The version this command runs, kept so that a replay or a fork of its runs finds it after an edit.
    if (asked.agent_fingerprint) keepAgentVersion(out, base.home, asked.agent_fingerprint);
    for (const model of definition.models) {
      const shared = model.condition && agents.get(model.condition.model);
      if (shared) agents.set(model.name, shared);
    }
    return {
      out,
      definition,
      tasks: new Map(tasks.map((task) => [task.id, task])),
      agents,
      ...(claimed.condition === undefined ? {} : { condition: claimed.condition }),
      release: lock.release,
      forgetIfNew: () => {
        if (recordedNow) rmSync(batchDefinitionFile(out), { force: true });
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The batch recorded in OUT and its tasks, without loading the agent (for grading and reports). */
export function openBatchTasks(outDirectory: string): Omit<OpenedBatch, 'agents'> {
  const out = resolve(outDirectory);
  const definition = readBatchOrFail(out);
  const dataset = openDataset(definition.tasks_file, { imageMap: definition.image_map?.file });
  const current: BatchDefinition = {
    ...definition,
    tasks_sha256: dataset.sha256,
    ...(dataset.taskSha256 === undefined ? {} : { task_sha256: dataset.taskSha256 }),
    ...(dataset.imageMap === undefined ? {} : { image_map: { file: dataset.imageMap.file, sha256: dataset.imageMap.sha256 } }),
  };
  const differences = definitionDifferences(definition, current);
  if (differences.length > 0) {
    const what =
      dataset.taskSha256 === undefined
        ? `The TASKS file ${definition.tasks_file} changed since the batch in ${out} started.`
        : `The tasks of the batch in ${out} changed since it started: ${differences.join('; ')}.`;
    throw new ConfigurationError(what, {
      code: 'BATCH_CHANGED',
      file: definition.tasks_file,
      hint: 'Restore the tasks (and the image map) as they were, or start a new batch with a new --out.',
    });
  }
  const tasks = dataset.tasks();
  return { out, definition, tasks: new Map(tasks.map((task) => [task.id, task])) };
}

/**
 * Opens the batch recorded in OUT, from OUT alone: what a worker that executes one run of it (a queue
 * worker, say) starts from. The TASKS file must still hold what it held.
 */
export function openBatch(outDirectory: string, options: Pick<BatchSpec, 'strict' | 'onWarning'> = {}): OpenedBatch {
  const batch = openBatchTasks(outDirectory);
  const { definition } = batch;
  const modelsFile = definition.models_file === undefined ? {} : { modelsFile: definition.models_file };
  return { ...batch, agents: loadAgents(definition.agent, definition.models, definition.set, { ...options, ...modelsFile }) };
}

/** Every run of the batch: each task × model × repeat, task by task. */
export function batchKeys(definition: BatchDefinition): BatchRunKey[] {
  const keys: BatchRunKey[] = [];
  for (const task of definition.task_ids) {
    for (const model of definition.models) {
      for (let repeat = 1; repeat <= definition.repeat; repeat += 1) keys.push({ task, model: model.name, repeat });
    }
  }
  return keys;
}

/** The runs this command executes: those of its condition (`--condition`, else the batch's first). */
export function conditionKeys(batch: Pick<OpenedBatch, 'definition' | 'condition'>): BatchRunKey[] {
  const names = new Set(batch.definition.models.filter((model) => conditionOfModel(model) === batch.condition).map((model) => model.name));
  return batchKeys(batch.definition).filter((key) => names.has(key.model));
}

/** The run's workspace directory, `OUT/<task>/<model directory>/<k>/`. */
export function runDirectoryOf(batch: Pick<OpenedBatch, 'out' | 'definition'>, key: BatchRunKey): string {
  const model = batch.definition.models.find((candidate) => candidate.name === key.model);
  if (!model) throw new ConfigurationError(`The batch has no model "${key.model}".`, { code: 'USAGE' });
  return batchRunDirectory(batch.out, key.task, model.directory, key.repeat);
}
