import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { ConfigurationError } from '@delta/errors';
import { readUntrustedFile } from '@delta/untrusted-file';
import type { SandboxChoice } from './sandbox-choice.js';

/** What a run is given about an image: asked for (agent.yaml, a task, --image) or recorded (a run continued). */
export interface ImageRequest {
  /** The reference as given: a layout, an archive, a registry's. */
  reference: string;
  /** Where the workspace is inside (default: the image's WorkingDir, else /workspace). */
  workdir?: string;
  /** The digest the run used before (continue, replay, fork): the image must be that one. */
  recordedDigest?: string;
  /** The cache of unpacked images (default ~/.cache/delta/images; the CLI's DELTA_IMAGE_CACHE). */
  cacheDir?: string;
  /** Where a relative reference is taken from (the agent's directory, for agent.yaml's). */
  cwd: string;
}

/** The image as ENGINE_START records it. */
export interface ImageRecord {
  reference: string;
  digest: string;
  chain_id: string;
  workdir: string;
  user: string;
}

/** The default cache of unpacked images: one per user, shared by every run and batch of theirs. */
export function defaultImageCache(): string {
  return join(homedir(), '.cache', 'delta', 'images');
}

/** The uid and gid of `user` (the image's User: `N`, `N:M`, `name`, `name:group`), from the image's own /etc files. */
function imageUser(root: string, user: string | undefined, reference: string): { uid: number; gid: number } {
  if (user === undefined || user === '') return { uid: 0, gid: 0 };
  const [who, group] = user.split(':');
  const lookUp = (file: string, name: string): number | undefined => {
    const read = readUntrustedFile(join(root, 'etc', file), { allowedRoots: [root], maxBytes: 4 * 1024 * 1024 });
    if (read.kind !== 'file') return undefined;
    for (const line of read.bytes.toString('utf8').split('\n')) {
      const fields = line.split(':');
      if (fields[0] === name && /^\d+$/.test(fields[2] ?? '')) return Number(fields[2]);
    }
    return undefined;
  };
  const uid = /^\d+$/.test(who!) ? Number(who) : lookUp('passwd', who!);
  if (uid === undefined) {
    throw new ConfigurationError(`The image ${reference} runs as user ${JSON.stringify(who)}, which its /etc/passwd does not name.`, {
      code: 'IMAGE_INVALID',
      hint: 'Give the image a User its /etc/passwd names (or a number), or rebuild it.',
    });
  }
  const gid = group === undefined ? (uid === 0 ? 0 : uid) : /^\d+$/.test(group) ? Number(group) : (lookUp('group', group) ?? uid);
  return { uid, gid };
}

/**
 * Readies the image a run names: resolved (a layout, an archive, a registry; @delta/images, loaded only when
 * an image is named), unpacked into the cache once and marked in use by this engine, and put into the
 * sandbox's policy as the tools' root, over the run's own layer in `layerDir`. A run continued, replayed or
 * forked gets the image it recorded: found in the cache by its digest, or read again and refused if it is
 * another image now. Returns the choice with the image, its record, the image's environment, and what to
 * call when the run ends.
 */
export async function prepareImage(
  choice: SandboxChoice,
  request: ImageRequest,
  layerDir: string,
): Promise<{ choice: SandboxChoice; env: Record<string, string>; release: () => void; notes: string[] }> {
  if (choice.policy === undefined) {
    throw new ConfigurationError(
      `The image ${request.reference} is the tools' root only in the sandbox, and this run has none (${choice.description}).`,
      {
        code: 'SANDBOX_UNAVAILABLE',
        hint: 'Run with the sandbox (install bubblewrap; no --sandbox off), or name no image.',
      },
    );
  }
  const images = await import('@delta/images');
  const cacheDir = request.cacheDir ?? defaultImageCache();
  let image = request.recordedDigest === undefined ? undefined : images.findImage(cacheDir, request.recordedDigest);
  if (image === undefined) {
    // A registry's image the run used is pulled by that digest (another machine, a cache pruned since).
    const parsed = images.parseImageReference(request.reference, request.cwd);
    const reference =
      request.recordedDigest !== undefined && parsed.kind === 'registry'
        ? `${parsed.host}/${parsed.repository}@${request.recordedDigest}`
        : request.reference;
    image = await images.resolveImage(reference, { cacheDir, cwd: request.cwd });
    if (request.recordedDigest !== undefined && image.digest !== request.recordedDigest) {
      throw new ConfigurationError(
        `The run used the image ${request.reference} at ${request.recordedDigest}; ${request.reference} is now ${image.digest}, another image.`,
        {
          code: 'IMAGE_DIGEST_MISMATCH',
          hint: `Give it the image it used (a registry: ${request.reference.replace(/[:@].*$/, '')}@${request.recordedDigest}), or start a new run.`,
        },
      );
    }
  }
  const unpacked = await images.unpackImage(image, { cacheDir });
  // Recorded as this machine finds it again (replay, fork, continue): a layout's or archive's absolute path.
  const named = images.parseImageReference(request.reference, request.cwd);
  const reference = named.kind === 'registry' ? request.reference : `${named.path}${named.tag === undefined ? '' : `:${named.tag}`}`;
  const release = images.useImageRoot(cacheDir, unpacked.chainId);
  const workdir = request.workdir ?? image.config.workingDir ?? '/workspace';
  if (!isAbsolute(workdir) || workdir === '/') {
    release();
    throw new ConfigurationError(
      `The workdir ${JSON.stringify(workdir)} of the image ${request.reference} is not an absolute directory other than /.`,
      {
        code: 'CONFIG_INVALID',
        hint: 'Give workdir as an absolute path inside the image, such as /workspace.',
      },
    );
  }
  const { uid, gid } = imageUser(unpacked.root, image.config.user, request.reference);
  const record: ImageRecord = {
    reference,
    digest: image.digest,
    chain_id: unpacked.chainId,
    workdir,
    user: `${uid}:${gid}`,
  };
  const hidden = images.entriesAt(unpacked.root, workdir);
  const notes =
    hidden > 0
      ? [
          `the workspace is mounted at ${workdir}, over ${hidden} entries the image has there, which the tools do not see; give workdir (sandbox.workdir, a task's workdir, --workdir) to mount it elsewhere`,
        ]
      : [];
  return {
    choice: {
      ...choice,
      policy: {
        ...choice.policy,
        // This machine's programs cannot run on the image's root: the /tmp directories shown for them are not shown.
        visiblePaths: choice.policy.visiblePaths.filter((path) => !choice.toolPrograms?.includes(path)),
        image: { root: unpacked.root, layer: layerDir, workdir, uid, gid },
      },
      record: { ...choice.record, image: record },
      description: `${choice.description}, image ${request.reference} (${image.digest.slice(0, 19)}), workspace at ${workdir}`,
    },
    env: image.config.env,
    release,
    notes,
  };
}

/** The image a new run asks for (`--image` or a task's over agent.yaml's `sandbox.image`), or none. */
export function imageRequestOf(
  agent: { home: string; config: { sandbox?: { image?: string | undefined; workdir?: string | undefined } | undefined } },
  options: { image?: string; workdir?: string; imageDigest?: string; imageCache?: string } | undefined,
): ImageRequest | undefined {
  const fromAgent = agent.config.sandbox?.image;
  const reference = options?.image ?? fromAgent;
  if (reference === undefined) return undefined;
  const workdir = options?.workdir ?? agent.config.sandbox?.workdir;
  return {
    reference,
    // agent.yaml's relative reference is the agent directory's; one given on the command line, the caller's.
    cwd: options?.image === undefined ? agent.home : process.cwd(),
    ...(workdir === undefined ? {} : { workdir }),
    ...(options?.imageDigest === undefined ? {} : { recordedDigest: options.imageDigest }),
    ...(options?.imageCache === undefined ? {} : { cacheDir: options.imageCache }),
  };
}

/** Where a run in an image keeps its own layer (what it changed outside its workspace): `.delta/<run>/layer`. */
export function runLayerDirectory(paths: { runDir: string }): string {
  return join(paths.runDir, 'layer');
}

/** The image a run's first engine recorded in ENGINE_START (its `sandbox.image`), if it ran in one. */
export function recordedImage(events: Iterable<{ type: string; sandbox?: unknown }>): ImageRecord | undefined {
  let start: { sandbox?: { image?: Partial<ImageRecord> } } | undefined;
  for (const event of events) {
    if (event.type !== 'ENGINE_START') continue;
    start = event as typeof start;
    break;
  }
  const image = start?.sandbox?.image;
  if (image?.reference === undefined || image.digest === undefined || image.workdir === undefined) return undefined;
  return image as ImageRecord;
}
