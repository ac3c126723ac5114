// What the image tests share: images made with umoci and busybox (or a loud skip), and layouts written by
// hand from tar bytes made here, for the hostile cases no tool would write.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const missing = ['umoci', 'skopeo'].filter((tool) => spawnSync(tool, ['--version']).error !== undefined);
const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((path) => existsSync(path));
/** Why the tests that build images skip (loudly), or undefined. */
export const imageToolsMissing =
  missing.length > 0 || busybox === undefined
    ? (process.env.DELTA_TEST_IMAGE_TOOLS_UNAVAILABLE ??
      `not installed: ${[...missing, ...(busybox ? [] : ['busybox-static'])].join(', ')}`)
    : undefined;
if (imageToolsMissing) console.warn(`\n!!!!!!!!\n!!! SKIPPING the image tests that build images: ${imageToolsMissing}.\n!!!!!!!!\n`);

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
}

/**
 * An OCI layout at `layout` with image `tag`: busybox as /bin/sh (and its applets), what `populate` writes
 * into the root, and the config given. Each call adds a layer over what `tag` held (a new tag starts empty).
 */
export function buildImage(
  layout: string,
  tag: string,
  populate: (rootfs: string) => void,
  config: { workdir?: string; env?: string[]; user?: string; from?: string } = {},
): string {
  if (!existsSync(join(layout, 'index.json'))) run('umoci', ['init', '--layout', layout]);
  if (config.from) run('umoci', ['config', '--image', `${layout}:${config.from}`, '--tag', tag]);
  else run('umoci', ['new', '--image', `${layout}:${tag}`]);
  const bundle = `${layout}-bundle-${tag}-${Date.now()}`;
  run('umoci', ['unpack', '--rootless', '--image', `${layout}:${tag}`, bundle]);
  const rootfs = join(bundle, 'rootfs');
  if (!config.from) {
    mkdirSync(join(rootfs, 'bin'), { recursive: true });
    copyFileSync(busybox!, join(rootfs, 'bin', 'busybox'));
    for (const applet of [
      'sh',
      'ls',
      'cat',
      'echo',
      'rm',
      'touch',
      'mkdir',
      'id',
      'env',
      'sleep',
      'grep',
      'wc',
      'head',
      'tr',
      'pwd',
      'seq',
    ]) {
      symlinkSync('busybox', join(rootfs, 'bin', applet));
    }
    mkdirSync(join(rootfs, 'tmp'), { recursive: true });
  }
  populate(rootfs);
  run('umoci', ['repack', '--image', `${layout}:${tag}`, bundle]);
  const settings = [
    ...(config.workdir ? ['--config.workingdir', config.workdir] : []),
    ...(config.user ? ['--config.user', config.user] : []),
    ...(config.env ?? ['PATH=/bin']).flatMap((pair) => ['--config.env', pair]),
  ];
  run('umoci', ['config', '--image', `${layout}:${tag}`, ...settings]);
  spawnSync('rm', ['-rf', bundle]);
  return layout;
}

/** One entry of a tar made by hand. */
export interface HandEntry {
  path: string;
  type?: 'file' | 'directory' | 'symlink' | 'hardlink' | 'character' | 'fifo';
  content?: string | Buffer;
  mode?: number;
  linkpath?: string;
}

const FLAGS = { file: '0', hardlink: '1', symlink: '2', character: '3', directory: '5', fifo: '6' };

function header(entry: HandEntry, size: number): Buffer {
  const block = Buffer.alloc(512);
  const put = (text: string, at: number, length: number) => block.write(text.slice(0, length), at, 'utf8');
  const octal = (value: number, at: number, length: number) => put(`${value.toString(8).padStart(length - 1, '0')}\0`, at, length);
  put(entry.path, 0, 100);
  octal(entry.mode ?? (entry.type === 'directory' ? 0o755 : 0o644), 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(0, 136, 12);
  put(FLAGS[entry.type ?? 'file'], 156, 1);
  put(entry.linkpath ?? '', 157, 100);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  return block;
}

/** The bytes of a tar of `entries`, as written (no checks: the point is hostile archives). */
export function tarOf(entries: HandEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    parts.push(header(entry, content.length), content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * An OCI layout written by hand: each layer's tar gzipped, the config's diff_ids and every digest right
 * unless `tamper` changes them (a layer's bytes after its digest was taken, a wrong diff_id).
 */
export function handLayout(
  dir: string,
  layers: Buffer[],
  tamper: { layerBytes?: (index: number, bytes: Buffer) => Buffer; diffId?: (index: number, diffId: string) => string } = {},
): string {
  mkdirSync(join(dir, 'blobs', 'sha256'), { recursive: true });
  const write = (bytes: Buffer) => {
    const digest = sha(bytes);
    writeFileSync(join(dir, 'blobs', 'sha256', digest.slice(7)), bytes);
    return { digest, size: bytes.length };
  };
  const descriptors = layers.map((tar, index) => {
    const gz = gzipSync(tar);
    const described = { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...write(gz) };
    if (tamper.layerBytes) writeFileSync(join(dir, 'blobs', 'sha256', described.digest.slice(7)), tamper.layerBytes(index, gz));
    return described;
  });
  const diffIds = layers.map((tar, index) => (tamper.diffId ? tamper.diffId(index, sha(tar)) : sha(tar)));
  const config = Buffer.from(
    JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Env: ['PATH=/bin'] }, rootfs: { type: 'layers', diff_ids: diffIds } }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...write(config) },
      layers: descriptors,
    }),
  );
  const manifestDescriptor = {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    ...write(manifest),
    annotations: { 'org.opencontainers.image.ref.name': 'hand' },
  };
  writeFileSync(join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}');
  writeFileSync(join(dir, 'index.json'), JSON.stringify({ schemaVersion: 2, manifests: [manifestDescriptor] }));
  return dir;
}
