import type { SandboxLimits } from '@delta/command-runner';
import { z } from 'zod';

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$/i;

/** `2G`, `512M`, `1.5G` or a number of bytes: the bytes, or undefined when `text` is none of these. */
export function parseByteSize(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isSafeInteger(text) && text > 0 ? text : undefined;
  const match = SIZE.exec(text);
  if (!match) return undefined;
  const bytes = Math.round(Number(match[1]) * UNITS[match[2]!.toUpperCase()]!);
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

const ByteSize = z.union([z.number(), z.string()]).transform((value, context) => {
  const bytes = parseByteSize(value);
  if (bytes === undefined) {
    context.addIssue({
      code: 'custom',
      message: `${JSON.stringify(value)} is not a size: give bytes, or a number with K, M, G or T (2G, 512M)`,
    });
    return z.NEVER;
  }
  return bytes;
});

/**
 * `sandbox.limits:` in agent.yaml (a task and `--limit` can set them too): what one run's sandbox may use.
 * `memory`, `processes` and `cpus` are held by cgroups where this user may make them (said at the start of a
 * run when one cannot be); `layer` bounds what a run in an image writes outside its workspace. See
 * docs/environments.md.
 */
export const SandboxLimitsConfig = z.strictObject({
  memory: ByteSize.optional(),
  processes: z.number().int().min(8, 'at least 8: a run needs its launcher, a shell and the tool').optional(),
  cpus: z.number().positive().max(4096).optional(),
  layer: ByteSize.optional(),
});
export type SandboxLimitsConfig = z.infer<typeof SandboxLimitsConfig>;

/** The limits a sandbox holds (command-runner's SandboxLimits) of a `sandbox.limits`; undefined when it sets none. */
export function sandboxLimitsOf(config: SandboxLimitsConfig | undefined): SandboxLimits | undefined {
  if (config === undefined) return undefined;
  const limits: SandboxLimits = {
    ...(config.memory === undefined ? {} : { memoryBytes: config.memory }),
    ...(config.processes === undefined ? {} : { processes: config.processes }),
    ...(config.cpus === undefined ? {} : { cpus: config.cpus }),
    ...(config.layer === undefined ? {} : { layerBytes: config.layer }),
  };
  return Object.keys(limits).length === 0 ? undefined : limits;
}
