// The images bench/environments.mjs runs in, built with no daemon and kept in bench/.images/ (ignored by
// git, never cleaned by a bench) so that a rerun skips building them:
//   - `debian`: Debian packages (`apt-get download`, then `dpkg-deb -x` of each into an umoci bundle's
//     rootfs: Python 3.11, Perl 5.36, git, libc...), busybox-static as /bin/sh and its applets, at least
//     100 MB unpacked; `umoci repack`, WorkingDir /workspace.
//   - `debian-1g`: the same with one more layer holding a 1 GiB file of random bytes (for the first unpack).
// BUILD.txt beside the layout says how it was built and what it holds.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './processes.mjs';
import { treeSize } from './disk.mjs';

export const imagesDir = join(root, 'bench', '.images');
export const layout = join(imagesDir, 'layout');

/** What goes into the image: an interpreter or two and their libraries, as an environment image holds. */
const PACKAGES = [
  'libc6',
  'libgcc-s1',
  'zlib1g',
  'libexpat1',
  'libssl3',
  'libffi8',
  'libbz2-1.0',
  'liblzma5',
  'libsqlite3-0',
  'python3.11-minimal',
  'libpython3.11-minimal',
  'libpython3.11-stdlib',
  'perl-base',
  'perl-modules-5.36',
  'libperl5.36',
  'git',
  'git-man',
];
const MIN_BYTES = 100 * 1024 * 1024;

function sh(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr || result.error?.message}`);
  return result.stdout;
}

const hasTag = (tag) =>
  existsSync(join(layout, 'index.json')) &&
  JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')).manifests.some(
    (manifest) => manifest.annotations?.['org.opencontainers.image.ref.name'] === tag,
  );

function busyboxInto(rootfs) {
  const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((path) => existsSync(path));
  if (!busybox) throw new Error('busybox is missing: apt-get install busybox-static');
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  copyFileSync(busybox, join(rootfs, 'bin', 'busybox'));
  for (const line of sh(busybox, ['--list']).split('\n')) {
    const applet = line.trim();
    if (applet === '' || applet === 'busybox') continue;
    if (!existsSync(join(rootfs, 'bin', applet)) && !existsSync(join(rootfs, 'usr/bin', applet)))
      symlinkSync('busybox', join(rootfs, 'bin', applet));
  }
}

/** One more layer over `from` (a new tag), or a new image: `populate(rootfs)` fills the bundle, then repack and config. */
function layer(tag, from, populate, log) {
  const bundle = join(imagesDir, `bundle-${tag}`);
  rmSync(bundle, { recursive: true, force: true });
  if (!existsSync(join(layout, 'index.json'))) sh('umoci', ['init', '--layout', layout]);
  if (from) sh('umoci', ['config', '--image', `${layout}:${from}`, '--tag', tag]);
  else sh('umoci', ['new', '--image', `${layout}:${tag}`]);
  sh('umoci', ['unpack', '--rootless', '--image', `${layout}:${tag}`, bundle]);
  populate(join(bundle, 'rootfs'));
  const started = performance.now();
  sh('umoci', ['repack', '--image', `${layout}:${tag}`, bundle]);
  log(`umoci repack --image layout:${tag}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const config = ['--config.workingdir', '/workspace', '--config.env', 'PATH=/usr/local/bin:/usr/bin:/bin'];
  sh('umoci', ['config', '--image', `${layout}:${tag}`, ...config]);
  rmSync(bundle, { recursive: true, force: true });
}

/** Builds what is missing; returns `{ base, big, description }` (references `DIR:TAG`, and how they were built). */
export function ensureDebianImages(progress) {
  mkdirSync(imagesDir, { recursive: true });
  const notes = join(imagesDir, 'BUILD.txt');
  const log = (line) => {
    progress(line);
    writeFileSync(notes, `${line}\n`, { flag: 'a' });
  };
  if (!hasTag('debian')) {
    rmSync(layout, { recursive: true, force: true });
    writeFileSync(notes, `built ${new Date().toISOString()} by bench/lib/debian-image.mjs\n`);
    const debs = join(imagesDir, 'debs');
    mkdirSync(debs, { recursive: true });
    log(`apt-get download ${PACKAGES.join(' ')} (into bench/.images/debs)`);
    sh('apt-get', ['download', ...PACKAGES], { cwd: debs });
    layer(
      'debian',
      undefined,
      (rootfs) => {
        for (const deb of readdirSync(debs).filter((name) => name.endsWith('.deb'))) sh('dpkg-deb', ['-x', join(debs, deb), rootfs]);
        busyboxInto(rootfs);
        for (const dir of ['tmp', 'var/tmp', 'root', 'workspace']) mkdirSync(join(rootfs, dir), { recursive: true });
        const size = treeSize(rootfs);
        log(`dpkg-deb -x of ${readdirSync(debs).length} .debs + busybox-static: ${size.files} files, ${(size.bytes / 1e6).toFixed(0)} MB`);
        if (size.bytes < MIN_BYTES) throw new Error(`the image holds only ${size.bytes} bytes, under 100 MiB: add packages`);
      },
      log,
    );
  }
  if (!hasTag('debian-1g')) {
    layer(
      'debian-1g',
      'debian',
      (rootfs) => {
        log('debian-1g: debian + one layer with /big.bin, 1 GiB from /dev/urandom');
        sh('sh', ['-c', `head -c ${1024 ** 3} /dev/urandom > "$1"`, 'sh', join(rootfs, 'big.bin')]);
      },
      log,
    );
  }
  return { base: `${layout}:debian`, big: `${layout}:debian-1g`, description: readFileSync(notes, 'utf8').trim() };
}
