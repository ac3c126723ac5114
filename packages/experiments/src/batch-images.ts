import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SandboxOptions } from '@delta/engine';
import { ConfigurationError, DeltaError, SystemError } from '@delta/errors';
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
  const references = new Map<string, Task[]>();
  for (const task of batch.tasks.values()) {
    const chosen = imageOfTask(batch.definition, task, agent);
    if (chosen) references.set(chosen.image, [...(references.get(chosen.image) ?? []), task]);
  }
  if (references.size === 0) return batch.definition;
  const images = await import('@delta/images');
  const { defaultImageCache } = await import('@delta/engine');
  const cacheDir = options.imageCache ?? defaultImageCache();
  const pinned: Record<string, string> = { ...(batch.definition.images ?? {}) };
  const changed: string[] = [];
  for (const [reference, tasks] of references) {
    const image = await images.resolveImage(reference, { cacheDir }).catch((error: unknown) => {
      throw imageErrorOfTasks(error, batch.definition, tasks);
    });
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

/** Where the tasks' image was named: the TASKS line's "image", a Harbor task's task.toml or --image-map, --image, agent.yaml. */
function imageSource(definition: BatchDefinition, task: Task): { file?: string; field?: string; where: string } {
  if (task.image === undefined && definition.image !== undefined) return { field: '--image', where: '--image' };
  if (task.image === undefined)
    return { file: resolve(definition.agent, 'agent.yaml'), field: 'sandbox.image', where: "agent.yaml's sandbox.image" };
  if (definition.task_sha256 === undefined)
    return { file: definition.tasks_file, field: 'image', where: `${definition.tasks_file} ("image")` };
  const where = `${resolve(definition.tasks_file, task.id, 'task.toml')} ([environment] docker_image)`;
  const map = definition.image_map?.file;
  return {
    file: map ?? resolve(definition.tasks_file, task.id, 'task.toml'),
    where: map === undefined ? where : `${where} or --image-map ${map}`,
  };
}

/**
 * An image that cannot be read, said with the tasks whose runs use it and where their image was named, so
 * that a dataset of many tasks says which line to fix. Its code and hint are the image error's.
 */
function imageErrorOfTasks(error: unknown, definition: BatchDefinition, tasks: readonly Task[]): unknown {
  if (!DeltaError.isInstance(error)) return error;
  const first = tasks[0]!;
  const source = imageSource(definition, first);
  const more =
    tasks.length === 1
      ? ''
      : ` (and ${tasks.length - 1} more: ${tasks
          .slice(1, 4)
          .map((task) => task.id)
          .join(', ')}${tasks.length > 4 ? ', ...' : ''})`;
  const message = `The image of the task "${first.id}"${more}, named in ${source.where}: ${error.message}`;
  const options = {
    cause: error,
    ...(source.file === undefined ? {} : { file: source.file }),
    ...(source.field === undefined ? {} : { field: source.field }),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
  };
  return error.kind === 'system'
    ? new SystemError(message, { ...options, code: error.code as SystemError['code'] })
    : new ConfigurationError(message, { ...options, code: error.code as ConfigurationError['code'] });
}
