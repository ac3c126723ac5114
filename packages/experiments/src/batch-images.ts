import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SandboxOptions } from '@delta/engine';
import { ConfigurationError } from '@delta/errors';
import type { BatchDefinition } from './batch-definition.js';
import { readBatchDefinition, writeBatchDefinition } from './batch-definition.js';
import type { Task } from './dataset.js';

/** The image a run of `task` uses: the task's, else the batch's `--image`, else agent.yaml's `sandbox.image` (made absolute). */
export function imageOfTask(
  definition: BatchDefinition,
  task: Task,
  agent: { home: string; config: { sandbox?: { image?: string | undefined; workdir?: string | undefined } | undefined } },
): { image: string; workdir?: string } | undefined {
  const fromAgent = agent.config.sandbox?.image;
  const image =
    task.image ??
    definition.image ??
    (fromAgent === undefined
      ? undefined
      : existsSync(resolve(agent.home, fromAgent.replace(/:[\w][\w.-]*$/, '')))
        ? resolve(agent.home, fromAgent)
        : fromAgent);
  if (image === undefined) return undefined;
  const workdir = task.workdir ?? agent.config.sandbox?.workdir;
  return { image, ...(workdir === undefined ? {} : { workdir }) };
}

/** What a batch run's engine is given of its image: it, its workdir, the digest the batch pinned, the cache. */
export function imageSandboxOptions(
  definition: BatchDefinition,
  chosen: { image: string; workdir?: string } | undefined,
  imageCache: string | undefined,
): SandboxOptions {
  if (chosen === undefined) return {};
  const digest = definition.images?.[chosen.image];
  return {
    image: chosen.image,
    ...(chosen.workdir === undefined ? {} : { workdir: chosen.workdir }),
    ...(digest === undefined ? {} : { imageDigest: digest }),
    ...(imageCache === undefined ? {} : { imageCache }),
  };
}

/**
 * Pins every image the batch's runs use to its digest now, in `OUT/.batch/definition.json` (`images`): each
 * run then uses exactly that image, on this machine or a worker's, even if its name points elsewhere later.
 * The same batch again, with an image changed under the same name, is BATCH_CHANGED, naming it. Called
 * under the batch's lock (prepareBatch), before any run starts; the images are read (a registry's pulled)
 * and checked here, so that a broken image stops the batch before it spends anything.
 */
export async function pinBatchImages(
  batch: {
    out: string;
    definition: BatchDefinition;
    tasks: ReadonlyMap<string, Task>;
    agents: ReadonlyMap<string, Parameters<typeof imageOfTask>[2]>;
  },
  options: { imageCache?: string } = {},
): Promise<BatchDefinition> {
  const agent = [...batch.agents.values()][0];
  if (agent === undefined) return batch.definition;
  const references = new Set<string>();
  for (const task of batch.tasks.values()) {
    const chosen = imageOfTask(batch.definition, task, agent);
    if (chosen) references.add(chosen.image);
  }
  if (references.size === 0) return batch.definition;
  const images = await import('@delta/images');
  const { defaultImageCache } = await import('@delta/engine');
  const cacheDir = options.imageCache ?? defaultImageCache();
  const pinned: Record<string, string> = { ...(batch.definition.images ?? {}) };
  const changed: string[] = [];
  for (const reference of references) {
    const image = await images.resolveImage(reference, { cacheDir });
    const before = pinned[reference];
    if (before !== undefined && before !== image.digest)
      changed.push(`${reference} is now ${image.digest}; the batch's runs used ${before}`);
    else pinned[reference] = image.digest;
  }
  if (changed.length > 0) {
    throw new ConfigurationError(`The batch in ${batch.out} was started with other images: ${changed.join('; ')}.`, {
      code: 'BATCH_CHANGED',
      hint: "Give the images the batch used (a registry's by digest: NAME@sha256:...), or start a new batch with another --out.",
    });
  }
  const definition = { ...(readBatchDefinition(batch.out) ?? batch.definition), images: pinned };
  writeBatchDefinition(batch.out, definition);
  batch.definition = definition;
  return definition;
}
