import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { imageError } from './image-error.js';

/** What an image reference names: a layout directory or an archive of this machine, or a registry's image. */
export type ImageReference =
  | { kind: 'layout'; path: string; tag?: string }
  | { kind: 'archive'; path: string; tag?: string }
  | { kind: 'registry'; host: string; repository: string; tag?: string; digest?: string };

const REGISTRY =
  /^((?:[a-zA-Z0-9-]+\.)+[a-zA-Z0-9-]+(?::\d+)?|localhost(?::\d+)?|[a-zA-Z0-9.-]+:\d+|\[[0-9a-fA-F:]+\](?::\d+)?)\/([a-z0-9]+(?:[._/-][a-z0-9]+)*)(?::([\w][\w.-]{0,127}))?(?:@(sha256:[0-9a-f]{64}))?$/;

function onDisk(path: string, tag: string | undefined): ImageReference | undefined {
  if (!existsSync(path)) return undefined;
  const kind = statSync(path).isDirectory() ? 'layout' : 'archive';
  return { kind, path, ...(tag === undefined ? {} : { tag }) };
}

/**
 * Reads an image reference: a path of this machine (relative to `cwd`) is a layout directory or an archive
 * file, `PATH:TAG` picks a tag in it; otherwise `host[:port]/name[:tag][@sha256:…]` is a registry's (the host
 * has a dot or a port, or is localhost, as Docker reads it; `docker.io/NAME` is Docker Hub's). Anything else is
 * IMAGE_NOT_FOUND, saying both.
 */
export function parseImageReference(text: string, cwd = process.cwd()): ImageReference {
  const trimmed = text.trim();
  const whole = onDisk(resolve(cwd, trimmed), undefined);
  if (whole) return whole;
  // PATH:TAG, the longest PATH that is here first: a docker-archive's tag may hold colons and slashes itself
  // (`image.tar:docker.io/library/app:latest`, as `docker save` names it).
  for (let colon = trimmed.lastIndexOf(':'); colon > 0; colon = trimmed.lastIndexOf(':', colon - 1)) {
    const tagged = onDisk(resolve(cwd, trimmed.slice(0, colon)), trimmed.slice(colon + 1));
    if (tagged) return tagged;
  }
  const match = REGISTRY.exec(trimmed);
  if (match) {
    // Docker Hub's name for people (docker.io/NAME) is not where its API is: registry-1.docker.io, with a
    // one-part name under library/ (docker.io/ubuntu is docker.io/library/ubuntu), as Docker reads it.
    const hub = match[1] === 'docker.io' || match[1] === 'index.docker.io';
    return {
      kind: 'registry',
      host: hub ? 'registry-1.docker.io' : match[1]!,
      repository: hub && !match[2]!.includes('/') ? `library/${match[2]}` : match[2]!,
      ...(match[3] === undefined ? {} : { tag: match[3] }),
      ...(match[4] === undefined ? {} : { digest: match[4] }),
      ...(match[3] === undefined && match[4] === undefined ? { tag: 'latest' } : {}),
    };
  }
  throw imageError(
    'IMAGE_NOT_FOUND',
    `The image ${JSON.stringify(text)} is not a directory or a file here (${resolve(cwd, trimmed)}), nor a registry reference (host[:port]/name:tag).`,
  );
}

/** Whether `host` (of a registry reference) is this machine: plain HTTP is used for it. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}
