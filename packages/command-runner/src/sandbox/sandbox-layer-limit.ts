import { join } from 'node:path';
import type { CgroupLimits, LimitEnforcement, LimitName } from './cgroup-limits.js';
import { LayerWatch } from './layer-watch.js';
import type { SandboxPolicy } from './sandbox-policy.js';

/** Why a layer limit cannot be held for a run that is not in an image. */
export const LAYER_WITHOUT_IMAGE = 'the run is not in an image, so it has no layer of its own (its writes go to its workspace)';

/** What a caller of RunSandbox.start hears from a sandbox besides its calls' results. */
export interface RunSandboxOptions {
  /**
   * A limit the sandbox holds by itself was passed (the layer's): it is ending every process in it. Called
   * once, so that the run ends too (see docs/experiments.md, "Limits per run").
   */
  onLimit?: (limit: LimitName, detail: string) => void;
}

/** What holds a run's layer to `policy.limits.layerBytes`: a watch (a run in an image), or why nothing can. */
export type SandboxLayerLimit = { watch: LayerWatch } | { unenforced: string };

/** The layer limit of a sandbox with `policy`, if it has one; `onPassed` ends the sandbox. */
export function sandboxLayerLimit(policy: SandboxPolicy, onPassed: (bytes: number, bound: number) => void): SandboxLayerLimit | undefined {
  const bound = policy.limits?.layerBytes;
  if (bound === undefined) return undefined;
  if (!policy.image) return { unenforced: LAYER_WITHOUT_IMAGE };
  return { watch: new LayerWatch(join(policy.image.layer, 'upper'), bound, (bytes) => onPassed(bytes, bound)) };
}

/** How a sandbox's limits are held and which it ran into: its cgroups', and its layer's. */
export function withLayerLimit(
  cgroups: CgroupLimits | undefined,
  layer: SandboxLayerLimit | undefined,
): { enforcement: LimitEnforcement | undefined; hit: LimitName[] } {
  if (layer === undefined) return { enforcement: cgroups?.enforcement, hit: cgroups?.hit() ?? [] };
  const enforcement: LimitEnforcement = {
    enforced: [...(cgroups?.enforcement.enforced ?? [])],
    unenforced: [...(cgroups?.enforcement.unenforced ?? [])],
  };
  if ('watch' in layer) enforcement.enforced.push({ limit: 'layerBytes', by: 'layer watch' });
  else enforcement.unenforced.push({ limit: 'layerBytes', reason: layer.unenforced });
  const passed = 'watch' in layer && layer.watch.passedAt !== undefined;
  return { enforcement, hit: [...(cgroups?.hit() ?? []), ...(passed ? (['layerBytes'] as const) : [])] };
}
