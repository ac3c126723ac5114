import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LimitEnforcement, probeBubblewrap, probeSandboxLimits } from '@delta/command-runner';
import { LIMIT_NAMES, sandboxLimitsOf } from '@delta/engine';
import { diskWrite } from '@delta/errors';
import { imageOfTask } from './batch-images.js';
import { batchControlDirectory } from './batch-layout.js';
import type { OpenedBatch } from './open-batch.js';

/** One limit of a batch's runs, as it is held (`by`) or why it is not (`reason`), and the runs that ask for it. */
export interface BatchLimit {
  /** `memory`, `processes`, `cpus` or `layer`. */
  limit: string;
  enforced: boolean;
  by?: string;
  reason?: string;
  tasks: string[];
  models: string[];
}

/** What stands between a batch's runs and any limit, when something does: no sandbox at all. */
function noSandbox(mode: string | undefined): string | undefined {
  if (mode === 'off') return "agent.yaml's sandbox.mode is off: no sandbox holds the run's processes";
  const probe = probeBubblewrap();
  return probe.ok ? undefined : `the runs have no sandbox: ${probe.problem}`;
}

/**
 * How every limit the batch's runs ask for (agent.yaml's `sandbox.limits`, each task's `limits` over them)
 * would be held on this machine, found before the first run: cgroups are made and removed as a run's
 * sandbox would (see probeSandboxLimits). Written to `OUT/.batch/limits.jsonl`, one line per limit and
 * way it is held, so that a limit that cannot be held is on record for the whole batch, not dropped.
 */
export function probeBatchLimits(batch: OpenedBatch): BatchLimit[] {
  const found = new Map<string, BatchLimit>();
  const probed = new Map<string, LimitEnforcement>();
  for (const model of batch.definition.models) {
    const agent = batch.agents.get(model.name);
    if (agent === undefined) continue;
    for (const id of batch.definition.task_ids) {
      const task = batch.tasks.get(id);
      const limits = sandboxLimitsOf({ ...agent.config.sandbox?.limits, ...task?.limits });
      if (task === undefined || limits === undefined) continue;
      const inImage = imageOfTask(batch.definition, task, agent) !== undefined;
      const why = noSandbox(agent.config.sandbox?.mode);
      const key = `${Object.keys(limits).sort().join(',')}|${inImage}|${why ?? ''}`;
      let enforcement = probed.get(key);
      if (enforcement === undefined) {
        enforcement =
          why === undefined
            ? probeSandboxLimits(limits, inImage)
            : { enforced: [], unenforced: Object.keys(limits).map((limit) => ({ limit: limit as keyof typeof limits, reason: why })) };
        probed.set(key, enforcement);
      }
      const entries: Array<Omit<BatchLimit, 'tasks' | 'models'>> = [
        ...enforcement.enforced.map((entry) => ({ limit: LIMIT_NAMES[entry.limit], enforced: true, by: entry.by })),
        ...enforcement.unenforced.map((entry) => ({ limit: LIMIT_NAMES[entry.limit], enforced: false, reason: entry.reason })),
      ];
      for (const entry of entries) {
        const name = `${entry.limit}|${entry.by ?? entry.reason}`;
        const line = found.get(name) ?? { ...entry, tasks: [], models: [] };
        if (!line.tasks.includes(id)) line.tasks.push(id);
        if (!line.models.includes(model.name)) line.models.push(model.name);
        found.set(name, line);
      }
    }
  }
  const lines = [...found.values()];
  const file = join(batchControlDirectory(batch.out), 'limits.jsonl');
  diskWrite(file, () => writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join('')));
  return lines;
}
