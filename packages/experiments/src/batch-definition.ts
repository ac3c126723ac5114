import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { LlmPricing } from '@delta/engine';
import { ConfigurationError, diskWrite, makeDirectory, parseJson } from '@delta/errors';
import { AgentFingerprint } from '@delta/journal';
import { z } from 'zod';
import { BatchCondition, claimCondition } from './batch-condition.js';
import { batchControlDirectory, batchDefinitionFile } from './batch-layout.js';

export const BatchModel = z.object({
  /** The model name exactly as given (`--model`) or as agent.yaml has it. */
  name: z.string(),
  /** Its directory under each task. */
  directory: z.string(),
  /** Given with `--model` (applied over agent.yaml), not read from agent.yaml. */
  override: z.boolean(),
  /** A model entry of a later condition (`--condition NAME`): named `<model>+NAME`, it runs `model` with that agent version. */
  condition: z.object({ name: z.string(), model: z.string() }).optional(),
  /** From a models file (`--models`): the model id sent, where `name` is the entry's name. */
  model: z.string().optional(),
  /** From a models file: its endpoint, when it gives one. */
  base_url: z.string().optional(),
  /** From a models file: the NAME of the variable that holds its key (never the key). */
  api_key_env: z.string().optional(),
  /** From a models file: its prices (a model without them runs unpriced). */
  pricing: LlmPricing.optional(),
  /** From a models file: the fields it lays over agent.yaml's `llm:` (temperature, reasoning_effort, extra_body...). */
  params: z.record(z.string(), z.unknown()).optional(),
});
export type BatchModel = z.infer<typeof BatchModel>;

/**
 * What a batch is: recorded in `OUT/.batch/definition.json` by its first command, so that the same
 * command resumes it and another one is refused rather than mixed into it.
 */
export const BatchDefinition = z.looseObject({
  schema_version: z.literal(1),
  tasks_file: z.string(),
  tasks_sha256: z.string(),
  /** For a directory of Harbor tasks: each task's sha256 (its instruction.md, task.toml, tests/ and solution/), by id. */
  task_sha256: z.record(z.string(), z.string()).optional(),
  /** `--image-map`: the file the tasks' images came from, and the sha256 of its text then. */
  image_map: z.object({ file: z.string(), sha256: z.string() }).optional(),
  task_ids: z.array(z.string()),
  agent: z.string(),
  models: z.array(BatchModel).min(1),
  /** The models file the models came from (`--models`), for people; each model's entry is recorded in `models`. */
  models_file: z.string().optional(),
  repeat: z.number().int().positive(),
  set: z.array(z.string()),
  grader: z.string().nullable(),
  created_at: z.string(),
  /** The agent's version the batch started with (absent in batches recorded before fingerprints, until resumed). */
  agent_fingerprint: AgentFingerprint.optional(),
  /** The name of that first version, when `--condition` gave it one. */
  agent_condition: z.string().optional(),
  /** Versions of the agent added later with `--condition NAME`, each with its own runs. */
  conditions: z.array(BatchCondition).optional(),
  /** `--image`: the runs' image, unless their task names one. */
  image: z.string().optional(),
  /** Every image the runs use, by reference, with the digest it had when the batch started (pinBatchImages). */
  images: z.record(z.string(), z.string()).optional(),
});
export type BatchDefinition = z.infer<typeof BatchDefinition>;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function readBatchDefinition(out: string): BatchDefinition | undefined {
  const file = batchDefinitionFile(out);
  if (!existsSync(file)) return undefined;
  return parseJson(readFileSync(file, 'utf8'), file, { schema: BatchDefinition });
}

export function writeBatchDefinition(out: string, definition: BatchDefinition): void {
  const file = batchDefinitionFile(out);
  makeDirectory(batchControlDirectory(out));
  // Written whole and renamed: a batch killed here has either no definition or a complete one.
  diskWrite(file, () => {
    writeFileSync(`${file}.tmp`, `${JSON.stringify(definition, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  });
}

/** What differs between the batch in OUT and the one asked for, in words; empty when they are the same batch. */
export function definitionDifferences(recorded: BatchDefinition, asked: BatchDefinition): string[] {
  const differences: string[] = [];
  const show = (value: unknown) => JSON.stringify(value);
  differences.push(...taskDifferences(recorded, asked));
  if (show(recorded.image_map ?? null) !== show(asked.image_map ?? null)) {
    const named = (map: BatchDefinition['image_map']) => (map === undefined ? 'none' : `${map.file} (sha256 ${map.sha256.slice(0, 12)})`);
    differences.push(`--image-map: ${named(asked.image_map)}, the batch has ${named(recorded.image_map)}, as it was then`);
  }
  if (recorded.agent !== asked.agent) differences.push(`the agent: ${asked.agent}, the batch has ${recorded.agent}`);
  // The models as given; the entries of later conditions (`--condition`) are the batch's, not the command's.
  const models = (definition: BatchDefinition) => definition.models.filter((model) => !model.condition).map((model) => model.name);
  if (show(models(recorded)) !== show(models(asked))) {
    differences.push(`the models: ${models(asked).join(', ')}, the batch has ${models(recorded).join(', ')}`);
  }
  differences.push(...modelEntryDifferences(recorded.models, asked.models));
  if (recorded.repeat !== asked.repeat) differences.push(`--repeat ${asked.repeat}, the batch has ${recorded.repeat}`);
  if (show(recorded.set) !== show(asked.set)) {
    differences.push(`--set: ${show(asked.set)}, the batch has ${show(recorded.set)}`);
  }
  if ((recorded.image ?? null) !== (asked.image ?? null)) {
    differences.push(`--image: ${show(asked.image ?? null)}, the batch has ${show(recorded.image ?? null)}`);
  }
  if (recorded.grader !== asked.grader) {
    differences.push(`--grader: ${show(asked.grader)}, the batch has ${show(recorded.grader)}`);
  }
  return differences;
}

/** How the tasks differ: for two directories of Harbor tasks, each task changed, added or gone, by name. */
export function taskDifferences(recorded: BatchDefinition, asked: BatchDefinition): string[] {
  if (recorded.tasks_sha256 === asked.tasks_sha256) return [];
  const before = recorded.task_sha256;
  const now = asked.task_sha256;
  if (before === undefined || now === undefined) {
    return [`the tasks: ${asked.tasks_file} is not the TASKS file the batch was started with (${recorded.tasks_file}, as it was then)`];
  }
  const ids = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort();
  return ids.flatMap((id) => {
    if (before[id] === now[id]) return [];
    if (before[id] === undefined) return [`the task "${id}" is new in ${asked.tasks_file} since the batch started`];
    if (now[id] === undefined) return [`the task "${id}" is gone from ${asked.tasks_file} since the batch started`];
    return [`the task "${id}" changed since the batch started (its instruction.md, task.toml, tests/ or solution/ in ${asked.tasks_file})`];
  });
}

/** A value with its objects' keys in order: the same entry written in another order is the same. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The fields of a model (from a models file) that make it a condition of its own. */
const MODEL_FIELDS = ['model', 'base_url', 'api_key_env', 'pricing', 'params'] as const;

/** Each model both definitions name whose entry changed, with the field: `the model "a": its base_url ...`. */
function modelEntryDifferences(recorded: readonly BatchModel[], asked: readonly BatchModel[]): string[] {
  const differences: string[] = [];
  const show = (value: unknown) => (value === undefined ? 'none' : JSON.stringify(sortedKeys(value)));
  for (const model of asked) {
    const before = recorded.find((candidate) => candidate.name === model.name);
    if (before === undefined) continue;
    for (const field of MODEL_FIELDS) {
      if (show(before[field]) !== show(model[field])) {
        differences.push(`the model "${model.name}": its ${field} is ${show(model[field])}, the batch has ${show(before[field])}`);
      }
    }
  }
  return differences;
}

/**
 * Records the definition in a new OUT, or checks that OUT holds this same batch, made with this same
 * version of the agent (`asked.agent_fingerprint`) for the condition asked (`--condition`, see batch-condition.ts).
 */
export function claimBatchDefinition(
  out: string,
  asked: BatchDefinition,
  condition?: string,
): { definition: BatchDefinition; condition: string | undefined } {
  const recorded = readBatchDefinition(out);
  if (recorded === undefined) {
    const definition = condition === undefined ? asked : { ...asked, agent_condition: condition };
    writeBatchDefinition(out, definition);
    return { definition, condition: undefined };
  }
  const differences = definitionDifferences(recorded, asked);
  if (differences.length > 0) {
    throw new ConfigurationError(
      `${out} holds another batch; this command differs from it in ${differences.length === 1 ? 'one way' : `${differences.length} ways`}:\n${differences.map((line) => `  - ${line}`).join('\n')}`,
      {
        code: 'BATCH_CHANGED',
        file: batchDefinitionFile(out),
        hint: `Run the batch's own command again to resume it (recorded in ${batchDefinitionFile(out)}), or pass a new --out for a new batch. To re-score with another grader, use delta grade ${out} --grader CMD.`,
      },
    );
  }
  const claimed = asked.agent_fingerprint ? claimCondition(out, recorded, asked.agent_fingerprint, condition) : undefined;
  if (claimed === undefined) return { definition: recorded, condition: undefined };
  if (claimed.changed) writeBatchDefinition(out, claimed.definition);
  return { definition: claimed.definition, condition: claimed.condition };
}
