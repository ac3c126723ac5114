import { agentFingerprint, compareFingerprints, describeFingerprintChanges, type LoadedAgent } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';
import type { JournalEvent } from '@delta/journal';
import { fingerprintOfModel } from './batch-condition.js';
import { type BatchRunKey, describeKey } from './batch-layout.js';
import type { OpenedBatch } from './open-batch.js';

const HINT =
  "Restore the agent's files as they were when the batch (or its condition) started, or run this version as a condition of its own (delta batch ... --condition NAME).";

/**
 * Refuses to start or continue one run of a batch with a version of the agent other than its condition's,
 * or, for a run being continued, other than the one it started with: no run ever gets requests from two
 * versions. The agent's files are hashed now, so an edit made while the batch runs is caught run by run.
 */
export function checkAgentVersion(
  batch: Pick<OpenedBatch, 'definition'>,
  key: BatchRunKey,
  agent: LoadedAgent,
  runEvents?: readonly JournalEvent[],
): void {
  const current = agentFingerprint(agent);
  const model = batch.definition.models.find((candidate) => candidate.name === key.model);
  const expected = model && fingerprintOfModel(batch.definition, model);
  if (expected) {
    const changes = compareFingerprints(expected, current);
    if (!changes.same) {
      throw new ConfigurationError(
        `${describeKey(key)}: the agent ${agent.home} is not the version these runs are made with (${describeFingerprintChanges(changes)}); the run is left as it is.`,
        { code: 'BATCH_CHANGED', hint: HINT },
      );
    }
  }
  const start = runEvents?.find((event) => event.type === 'ENGINE_START');
  const started = start?.type === 'ENGINE_START' ? start.agent_fingerprint : undefined;
  if (started) {
    const changes = compareFingerprints(started, current);
    if (!changes.same) {
      throw new ConfigurationError(
        `${describeKey(key)}: the run was started with another version of the agent ${agent.home} (${describeFingerprintChanges(changes)}); it is not continued with this one.`,
        { code: 'BATCH_CHANGED', hint: HINT },
      );
    }
  }
}
