import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { imageRootMount } from './bubblewrap-args.js';
import type { SandboxImage } from './sandbox-policy.js';

/**
 * A run's root under an image: an overlay mount of the image's unpacked root (lower, shared, never written)
 * under the run's own layer (upper: what the run changed outside its workspace). bubblewrap 0.8 cannot
 * mount one, and an unprivileged user may only in a user namespace of their own: so the sandbox's
 * bubblewrap is started by `unshare --user --map-root-user --mount`, whose shell mounts the overlay in that
 * namespace's mount namespace and then becomes bubblewrap. The mount lives as long as that namespace: when
 * the sandbox ends (its bubblewrap dies with the engine too, `--die-with-parent`), nothing is left mounted.
 * The run's files in its layer belong to the user who ran it, as the image's root does to whoever unpacked
 * it (the user the engine runs as: see @delta/images); in the namespace both are root.
 */

/**
 * A shell function: `check ROOT N TARGET…` fails, saying why, when a component of a TARGET (a path inside the
 * sandbox that its bubblewrap mounts something on) is a symbolic link under ROOT (the mounted root), and
 * otherwise leaves `$@` at the command after the targets. bubblewrap follows such a link while it builds the
 * root, where this machine's root is `/oldroot`: a run's tool that made `/logs` a link to `/oldroot/etc` had
 * the grader's bubblewrap make `/etc/verifier` on this machine. The image and the run's layer are hostile;
 * nothing of the run runs while this looks (the sandbox is not started yet).
 */
const CHECK_TARGETS = [
  'check() { root=$1; n=$2; shift 2; while [ "$n" -gt 0 ]; do',
  'rest=${1#/}; path=$root;',
  'while [ -n "$rest" ]; do part=${rest%%/*}; if [ "$part" = "$rest" ]; then rest=; else rest=${rest#*/}; fi; path=$path/$part;',
  'if [ -L "$path" ]; then echo "delta: the sandbox cannot mount $1: ${path#"$root"} is a symbolic link in the image or the layer of the run, which bubblewrap would follow out of the sandbox" >&2; exit 125; fi;',
  'done; shift; n=$((n - 1)); done; }',
].join(' ');

/**
 * The shell that mounts the overlay (options by short relative names: no path can break them), checks the
 * mount targets that follow (their count, then each) and becomes the command after them.
 */
const MOUNT_THEN_RUN = `${CHECK_TARGETS}; cd "$1" && mount -t overlay overlay -o "lowerdir=$3,upperdir=upper,workdir=work" "$2" && root=$2 && shift 3 && check "$root" "$@" && shift $(($1 + 1)) && exec "$@"`;

/** The shell that checks the mount targets under a mounted root (`root N TARGET…`) and becomes the command after them. */
const CHECK_THEN_RUN = `${CHECK_TARGETS}; root=$1 && shift && check "$root" "$@" && shift $(($1 + 1)) && exec "$@"`;

/** `command`, run only when none of `targets` goes through a link under `root` (see CHECK_TARGETS). */
export function afterTargetsChecked(root: string, targets: readonly string[], command: readonly string[]): string[] {
  return ['/bin/sh', '-c', CHECK_THEN_RUN, 'sh', root, String(targets.length), ...targets, ...command];
}

/** The overlay's lower layers by their names under `overlay/`, the topmost first: the layers above the image's root, then it. */
function lowerNames(image: SandboxImage): string {
  return [...(image.lowers ?? []).map((_layer, index) => `lower${index + 1}`), 'lower0'].join(':');
}

/** The directories and names the mount needs, under the sandbox's own directory `home`. */
export function prepareImageRoot(home: string, image: SandboxImage): void {
  for (const dir of [join(image.layer, 'upper'), join(image.layer, 'work'), join(home, 'root'), join(home, 'overlay')]) {
    mkdirSync(dir, { recursive: true });
  }
  const names: Record<string, string> = { lower0: image.root, upper: join(image.layer, 'upper'), work: join(image.layer, 'work') };
  for (const [index, layer] of (image.lowers ?? []).entries()) names[`lower${index + 1}`] = layer;
  for (const [name, target] of Object.entries(names)) symlinkSync(target, join(home, 'overlay', name));
  for (const mount of image.mounts ?? []) mkdirSync(mount.source, { recursive: true });
}

/** The command that runs `file args` (the sandbox's bubblewrap) with the run's root mounted under an image. */
export function inImageRoot(
  home: string,
  tmpDir: string,
  image: SandboxImage,
  file: string,
  args: readonly string[],
  targets: readonly string[],
): { file: string; args: string[] } {
  return {
    file: findProgram('unshare'),
    args: [
      '--user',
      '--map-root-user',
      '--mount',
      '--',
      '/bin/sh',
      '-c',
      MOUNT_THEN_RUN,
      'sh',
      join(home, 'overlay'),
      imageRootMount(tmpDir),
      lowerNames(image),
      String(targets.length),
      ...targets,
      file,
      ...args,
    ],
  };
}

/**
 * `command` run in the user and mount namespaces of process `pid` (the sandbox's bubblewrap, outside the
 * run's PID namespace): where the run's root is mounted. Those namespaces are this user's own, so entering
 * them takes no privilege.
 */
export function inSandboxMounts(pid: number, command: readonly string[]): string[] {
  return [findProgram('nsenter'), `--user=/proc/${pid}/ns/user`, `--mount=/proc/${pid}/ns/mnt`, '--', ...command];
}

/** A program of util-linux, where Debian and others keep it. */
function findProgram(name: string): string {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) if (existsSync(join(dir, name))) return join(dir, name);
  throw Object.assign(new Error(`a run in an image needs ${name} (util-linux): install util-linux`), { code: 'ENOENT' });
}
