import { randomBytes } from 'node:crypto';
import { CgroupLimits, type LimitEnforcement, type SandboxLimits } from './cgroup-limits.js';
import { LAYER_WITHOUT_IMAGE } from './sandbox-layer-limit.js';

/**
 * How `limits` would be held for a run started now by this process, found by making (and removing at once)
 * the cgroups a sandbox would: what a batch says once, before its first run, of the limits it cannot hold.
 * `inImage`: whether the runs are in an image (only those have a layer to bound).
 */
export function probeSandboxLimits(limits: SandboxLimits, inImage: boolean): LimitEnforcement {
  const cgroups = new CgroupLimits(limits, `delta-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  cgroups.remove();
  const { enforced, unenforced } = cgroups.enforcement;
  if (limits.layerBytes === undefined) return { enforced, unenforced };
  return inImage
    ? { enforced: [...enforced, { limit: 'layerBytes', by: 'layer watch' }], unenforced }
    : { enforced, unenforced: [...unenforced, { limit: 'layerBytes', reason: LAYER_WITHOUT_IMAGE }] };
}
