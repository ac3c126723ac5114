import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from './usage-error.js';

const MODES = ['workspace-write', 'read-only', 'off'] as const;
type Mode = (typeof MODES)[number];

/** The cache of unpacked images, when DELTA_IMAGE_CACHE names one (else the engine's default, ~/.cache/delta/images). */
export function imageCacheOption(): { imageCache?: string } {
  const cache = process.env.DELTA_IMAGE_CACHE;
  return cache === undefined || cache === '' ? {} : { imageCache: resolve(cache) };
}

/** `--image` as given, or made absolute when it names a path here (with or without `:TAG`). */
export function imageFlag(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  const path = text.replace(/:[\w][\w.-]*$/, '');
  return existsSync(path) ? resolve(text) : text;
}

/**
 * `--sandbox MODE`, `--no-network`, `--image REF` and `--workdir DIR` as the engine's sandbox options (over
 * agent.yaml's `sandbox:`), with the image cache DELTA_IMAGE_CACHE names.
 */
export function parseSandboxFlags(flags: { sandbox?: unknown; network?: unknown; image?: unknown; workdir?: unknown }): SandboxOptions {
  const options: SandboxOptions = { ...imageCacheOption() };
  const image = imageFlag(flags.image);
  if (image !== undefined) options.image = image;
  if (flags.workdir !== undefined) {
    const workdir = String(flags.workdir);
    if (!workdir.startsWith('/') || workdir === '/')
      throw usageError(`--workdir must be an absolute directory other than /, got "${workdir}".`, 'For example: --workdir /workspace');
    options.workdir = workdir;
  }
  if (flags.sandbox !== undefined) {
    const mode = String(flags.sandbox);
    if (!(MODES as readonly string[]).includes(mode)) {
      throw usageError(
        `--sandbox must be one of ${MODES.join(', ')}, got "${mode}".`,
        'For example: --sandbox read-only (tools may change nothing), or --sandbox off (no sandbox).',
      );
    }
    options.mode = mode as Mode;
  }
  if (flags.network === false) options.network = false;
  return options;
}

type SandboxOptions = { mode?: Mode; network?: boolean; image?: string; workdir?: string; imageCache?: string };
