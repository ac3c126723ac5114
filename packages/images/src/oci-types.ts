import { z } from 'zod';

/**
 * The OCI image formats this package reads (image-spec v1: index, manifest, config; and their Docker v2
 * schema 2 counterparts, which registries and `docker save` still write). Checked with zod where read:
 * every one of them is untrusted input.
 */
export const MEDIA = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
} as const;

export const Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a sha256 digest (sha256: and 64 hex digits)');

export const Descriptor = z.looseObject({
  mediaType: z.string().optional(),
  digest: Digest,
  size: z.number().int().nonnegative(),
  annotations: z.record(z.string(), z.string()).optional(),
  platform: z.looseObject({ os: z.string(), architecture: z.string(), variant: z.string().optional() }).optional(),
  urls: z.array(z.string()).optional(),
});
export type Descriptor = z.infer<typeof Descriptor>;

export const ImageIndex = z.looseObject({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  manifests: z.array(Descriptor),
});
export type ImageIndex = z.infer<typeof ImageIndex>;

export const ImageManifest = z.looseObject({
  schemaVersion: z.literal(2),
  mediaType: z.string().optional(),
  config: Descriptor,
  layers: z.array(Descriptor),
});
export type ImageManifest = z.infer<typeof ImageManifest>;

export const ImageConfigFile = z.looseObject({
  architecture: z.string().optional(),
  os: z.string().optional(),
  config: z
    .looseObject({
      Env: z.array(z.string()).nullable().optional(),
      WorkingDir: z.string().nullable().optional(),
      User: z.string().nullable().optional(),
      Entrypoint: z.array(z.string()).nullable().optional(),
      Cmd: z.array(z.string()).nullable().optional(),
    })
    .nullable()
    .optional(),
  rootfs: z.looseObject({ type: z.string(), diff_ids: z.array(Digest) }),
});
export type ImageConfigFile = z.infer<typeof ImageConfigFile>;

/** `docker save`'s manifest.json (and skopeo's docker-archive). */
export const DockerArchiveManifest = z.array(
  z.looseObject({ Config: z.string(), RepoTags: z.array(z.string()).nullable().optional(), Layers: z.array(z.string()) }),
);

/** What a run needs of an image's config: its environment, working directory and user. */
export interface ImageConfig {
  env: Record<string, string>;
  workingDir: string | undefined;
  user: string | undefined;
  entrypoint: string[] | undefined;
  cmd: string[] | undefined;
}

export function imageConfigOf(file: ImageConfigFile): ImageConfig {
  const config = file.config ?? {};
  const env: Record<string, string> = {};
  for (const pair of config.Env ?? []) {
    const equals = pair.indexOf('=');
    if (equals > 0) env[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  return {
    env,
    workingDir: config.WorkingDir || undefined,
    user: config.User || undefined,
    entrypoint: config.Entrypoint ?? undefined,
    cmd: config.Cmd ?? undefined,
  };
}

/** The OCI architecture of this machine, from Node's name for it. */
export function hostArchitecture(): string {
  const names: Record<string, string> = {
    x64: 'amd64',
    arm64: 'arm64',
    arm: 'arm',
    ia32: '386',
    ppc64: 'ppc64le',
    s390x: 's390x',
    riscv64: 'riscv64',
  };
  return names[process.arch] ?? process.arch;
}
