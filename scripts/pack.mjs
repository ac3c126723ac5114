#!/usr/bin/env node
// `pnpm pack-packages [--out DIR]`: packs every public package of the repository into DIR (./packed by
// default) as npm tarballs, with workspace:* dependencies turned into versions, so that a project outside
// this repository can depend on them: `npm install /path/to/packed/*.tgz`. The packages are not on the
// npm registry; this is how to use them from a clone. packages/release-check installs what this writes
// into an empty project and runs the CLIs, an agent, the library and the test kit there.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function usage(message) {
  if (message) process.stderr.write(`Error: ${message}\n`);
  process.stderr.write('Usage: pnpm pack-packages [--out DIR]   (default DIR: ./packed)\n');
  process.exit(message ? 2 : 0);
}

const args = process.argv.slice(2);
let out = join(root, 'packed');
for (let index = 0; index < args.length; index += 1) {
  const arg = args[index];
  if (arg === '--help' || arg === '-h') usage();
  else if (arg === '--out' && args[index + 1] !== undefined) out = resolve(args[++index]);
  else if (arg.startsWith('--out=')) out = resolve(arg.slice('--out='.length));
  else usage(`unknown argument "${arg}"`);
}

/** Every package under packages/ and apps/ that is not private: what would be published. */
function publicPackages() {
  const found = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      const manifestFile = join(root, group, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(manifestFile)) continue;
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
      if (!manifest.private) found.push({ name: manifest.name, version: manifest.version, directory: join(root, group, entry.name) });
    }
  }
  return found;
}

const packages = publicPackages();
const unbuilt = packages.filter((entry) => !existsSync(join(entry.directory, 'dist')));
if (unbuilt.length > 0) {
  process.stderr.write(
    `Error: ${unbuilt.map((entry) => entry.name).join(', ')} ${unbuilt.length === 1 ? 'is' : 'are'} not built (no dist/).\nHint: run \`pnpm install && pnpm build\` first.\n`,
  );
  process.exit(2);
}
mkdirSync(out, { recursive: true });
for (const entry of packages) {
  // pnpm pack, not npm pack: it rewrites workspace:* ranges into the versions they point at.
  execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: entry.directory, stdio: ['ignore', 'ignore', 'inherit'] });
}
// What this run wrote (an older version's tarball left in DIR is not one of them).
const tarballs = packages.map((entry) => `${entry.name.replace(/^@/, '').replace('/', '-')}-${entry.version}.tgz`).sort();
const missing = tarballs.filter((name) => !existsSync(join(out, name)));
if (missing.length > 0) {
  process.stderr.write(`Error: pnpm pack did not write ${missing.join(', ')} into ${out}.\n`);
  process.exit(1);
}
const nearby = relative(process.cwd(), out);
const shown = nearby === '' ? '.' : nearby.startsWith('..') ? out : nearby;
process.stdout.write(`Packed ${packages.length} packages into ${out}:\n`);
for (const name of tarballs) process.stdout.write(`  ${name}\n`);
process.stdout.write(
  `\nIn your project, install them together (the packages depend on each other by version):\n  npm install ${join(shown, '*.tgz')}\n`,
);
