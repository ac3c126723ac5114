import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigurationError, DeltaError } from '@delta/errors';
import { ConfigFileError, readConfigText, readYamlConfig } from '@delta/yaml-config';
import { z } from 'zod';
import { sha256 } from './batch-definition.js';
import { SAFE_ID } from './dataset.js';

/** A key of an image map: a task's name, or `sha256:<hex>` of a task's environment/Dockerfile. */
const MAP_KEY = new RegExp(`${SAFE_ID.source}|^sha256:[0-9a-f]{64}$`);

/**
 * An image map (`--image-map FILE`, YAML or JSON): from a task's name, or `sha256:<hex of its
 * environment/Dockerfile>`, to the image its runs use (a layout DIR[:TAG], an archive FILE[:TAG], or a
 * registry reference), over the task's `docker_image`.
 */
export const ImageMap = z.record(z.string(), z.string().trim().min(1, 'an image reference'));
export type ImageMap = z.infer<typeof ImageMap>;

/** An image map as read: its absolute path, the sha256 of its text, and its images (paths made absolute). */
export interface LoadedImageMap {
  file: string;
  sha256: string;
  images: ReadonlyMap<string, string>;
}

const EXAMPLE =
  'An image map gives each task (by name, or by sha256:<hex of its environment/Dockerfile>) its image, e.g.\n' +
  'fix-git: /data/images/tb:fix-git\n"sha256:3b1f...": registry.lab:5000/tb/hello:1';

/** `reference` made absolute against `directory` when it names a layout or archive there (with or without `:TAG`). */
export function localReference(reference: string, directory: string): string {
  const path = resolve(directory, reference.replace(/:[\w][\w.-]*$/, ''));
  return existsSync(path) ? resolve(directory, reference) : reference;
}

/** Reads an image map; a relative path in it is the map file's. Problems are CONFIG_INVALID, naming the line and the key. */
export function readImageMap(path: string): LoadedImageMap {
  const file = resolve(path);
  try {
    const parsed = readYamlConfig(file, ImageMap, { label: 'the image map', hintFor: () => EXAMPLE });
    const badKeys = Object.keys(parsed.data).filter((key) => !MAP_KEY.test(key));
    if (badKeys.length > 0) {
      const problems = badKeys.map((key) => ({
        file,
        ...parsed.locate([], key),
        field: key,
        message: 'is neither a task name (letters, digits, ".", "_" and "-") nor sha256:<64 hex digits of its environment/Dockerfile>',
      }));
      throw new ConfigFileError(file, problems, EXAMPLE);
    }
    const images = new Map(Object.entries(parsed.data).map(([key, reference]) => [key, localReference(reference, dirname(file))]));
    return { file, sha256: sha256(readConfigText(file)), images };
  } catch (error) {
    if (DeltaError.isInstance(error) && error.code === 'CONFIG_MISSING') {
      throw new ConfigurationError(`The image map ${file} does not exist.`, {
        code: 'CONFIG_MISSING',
        file,
        field: '--image-map',
        hint: `Check the path given to --image-map. ${EXAMPLE}`,
      });
    }
    throw error;
  }
}

/** The image the map gives a task: by its name first, else by its Dockerfile's hash. */
export function mappedImage(map: LoadedImageMap | undefined, name: string, dockerfileSha256: string | undefined): string | undefined {
  if (map === undefined) return undefined;
  return map.images.get(name) ?? (dockerfileSha256 === undefined ? undefined : map.images.get(`sha256:${dockerfileSha256}`));
}
