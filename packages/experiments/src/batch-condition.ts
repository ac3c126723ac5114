import { compareFingerprints, describeFingerprintChanges, type FingerprintChanges } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';
import { AgentFingerprint } from '@delta/journal';
import { z } from 'zod';
import type { BatchDefinition, BatchModel } from './batch-definition.js';
import { batchDefinitionFile } from './batch-layout.js';

/**
 * A version of the agent added to a batch with `--condition NAME` after the batch started: its runs are
 * those of the model entries whose `condition.name` is NAME (`OUT/<task>/<model>+NAME/<k>`).
 */
export const BatchCondition = z.looseObject({
  name: z.string(),
  agent_fingerprint: AgentFingerprint,
  created_at: z.string(),
});
export type BatchCondition = z.infer<typeof BatchCondition>;

const CONDITION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,59}$/;

/** `--condition` as given, checked: it becomes part of directory names. */
export function checkConditionName(name: string): string {
  if (!CONDITION_NAME.test(name)) {
    throw new ConfigurationError(`--condition "${name}" cannot be used as a condition name.`, {
      code: 'USAGE',
      field: '--condition',
      hint: 'Use letters, digits, ".", "_" and "-" (up to 60, starting with a letter or digit), e.g. --condition prompt-v2.',
    });
  }
  return name;
}

/** The condition a model entry's runs belong to: its name, or undefined for the batch's first condition. */
export function conditionOfModel(model: BatchModel): string | undefined {
  return model.condition?.name;
}

/** The agent version the runs of a model entry must be made with; undefined for a batch that recorded none. */
export function fingerprintOfModel(definition: BatchDefinition, model: BatchModel): AgentFingerprint | undefined {
  const condition = conditionOfModel(model);
  if (condition === undefined) return definition.agent_fingerprint;
  return definition.conditions?.find((candidate) => candidate.name === condition)?.agent_fingerprint;
}

function changedError(out: string, home: string, condition: string | undefined, changes: FingerprintChanges): ConfigurationError {
  const which = condition === undefined ? `the batch in ${out}` : `condition ${condition} of the batch in ${out}`;
  return new ConfigurationError(
    `The agent ${home} is not the version ${which} was started with: ${describeFingerprintChanges(changes)}. Resuming would mix two versions of the agent in one batch.`,
    {
      code: 'BATCH_CHANGED',
      file: batchDefinitionFile(out),
      hint: `Restore the agent's files to resume the batch as it was; or run this version beside it as a condition of its own with the same command and --condition NAME (its runs go to ${out}/<task>/<model>+NAME/<k>); or start a new batch with a new --out.`,
    },
  );
}

/** A condition's model entries: one per model of the batch's first condition, named and placed `<model>+NAME`. */
function conditionModels(definition: BatchDefinition, name: string): BatchModel[] {
  const entries = definition.models
    .filter((model) => model.condition === undefined)
    .map((model) => ({
      ...model,
      name: `${model.name}+${name}`,
      directory: `${model.directory}+${name}`,
      condition: { name, model: model.name },
    }));
  for (const entry of entries) {
    if (definition.models.some((model) => model.name === entry.name || model.directory === entry.directory)) {
      throw new ConfigurationError(
        `--condition ${name} would give the runs of ${entry.condition.model} the name of a model the batch has (${entry.name}).`,
        {
          code: 'USAGE',
          field: '--condition',
          hint: 'Choose another condition name.',
        },
      );
    }
  }
  return entries;
}

/** What `claimCondition` decided: the definition (to write when `changed`), and whose runs this command executes. */
export interface ClaimedCondition {
  definition: BatchDefinition;
  /** The condition this command runs; undefined for the batch's first. */
  condition: string | undefined;
  changed: boolean;
}

/**
 * Checks the agent's version against the batch recorded in OUT (the other fields already agree): the
 * condition asked for (`--condition`, else the batch's first) must have been made with this same
 * version (BATCH_CHANGED, naming each changed file, otherwise). A condition name the batch has not seen
 * adds this version as a new condition; a batch recorded before fingerprints records it now.
 */
export function claimCondition(
  out: string,
  recorded: BatchDefinition,
  fingerprint: AgentFingerprint,
  name: string | undefined,
): ClaimedCondition {
  if (name === undefined || name === recorded.agent_condition) {
    if (recorded.agent_fingerprint === undefined) {
      return { definition: { ...recorded, agent_fingerprint: fingerprint }, condition: undefined, changed: true };
    }
    const changes = compareFingerprints(recorded.agent_fingerprint, fingerprint);
    if (!changes.same) throw changedError(out, recorded.agent, name, changes);
    return { definition: recorded, condition: undefined, changed: false };
  }
  const existing = recorded.conditions?.find((condition) => condition.name === name);
  if (existing) {
    const changes = compareFingerprints(existing.agent_fingerprint, fingerprint);
    if (!changes.same) throw changedError(out, recorded.agent, name, changes);
    return { definition: recorded, condition: name, changed: false };
  }
  // A new condition is a new version of the agent: the same files as a version the batch has are that version.
  const same = [
    ...(recorded.agent_fingerprint ? [{ name: recorded.agent_condition, agent_fingerprint: recorded.agent_fingerprint }] : []),
    ...(recorded.conditions ?? []),
  ].find((version) => compareFingerprints(version.agent_fingerprint, fingerprint).same);
  if (same) {
    const which = same.name === undefined ? "the batch's first version" : `its condition ${same.name}`;
    throw new ConfigurationError(`--condition ${name}: the agent is the same version as ${which}; a condition is a changed agent.`, {
      code: 'BATCH_CHANGED',
      file: batchDefinitionFile(out),
      field: '--condition',
      hint:
        same.name === undefined
          ? `Run the batch's own command without --condition to resume it; --condition ${name} is for the agent once its files change.`
          : `Run it with --condition ${same.name} to resume that condition.`,
    });
  }
  const condition: BatchCondition = { name, agent_fingerprint: fingerprint, created_at: new Date().toISOString() };
  return {
    definition: {
      ...recorded,
      conditions: [...(recorded.conditions ?? []), condition],
      models: [...recorded.models, ...conditionModels(recorded, name)],
    },
    condition: name,
    changed: true,
  };
}
