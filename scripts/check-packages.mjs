#!/usr/bin/env node
// Checks what we would publish: publint on every public package, the metadata every package.json
// needs, and dependencies against imports. A library's `dependencies` must be exactly the bare
// specifiers its src/ imports (tests excluded); a bundled app's must be exactly what its dist/ imports
// at runtime. Run after the build: apps and publint read dist/. Exit 1 with one line per problem.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const root = new URL('..', import.meta.url).pathname;
const builtins = new Set(builtinModules);
const problems = [];

function publicPackages() {
  const directories = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      const file = join(root, group, entry.name, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (!manifest.private) directories.push({ directory: join(root, group, entry.name), manifest });
    }
  }
  return directories;
}

function filesUnder(directory, accept) {
  if (!existsSync(directory)) return [];
  const found = [];
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && accept(entry.name)) found.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return found;
}

const isTestFile = (name) => /\.test\.[cm]?[jt]s$|\.test-(support|fixture)\.[cm]?[jt]s$|^test-support\.ts$/.test(name);

// import ... from 'x', export ... from 'x', import 'x', import('x'), require('x')
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])([^'"\n]+)\1/g;

function packageName(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.startsWith('#'))
    return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtins.has(name) ? undefined : name;
}

function importedPackages(files) {
  const used = new Map();
  for (const file of files) {
    // Comments mention packages in prose ("import from '@delta/engine'"); strip them first.
    const text = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    for (const match of text.matchAll(SPECIFIER)) {
      const name = packageName(match[2]);
      if (name && !used.has(name)) used.set(name, relative(root, file));
    }
  }
  return used;
}

function checkMetadata({ directory, manifest }) {
  const where = relative(root, join(directory, 'package.json'));
  for (const field of ['name', 'version', 'description', 'license', 'files', 'exports', 'engines', 'type']) {
    if (manifest[field] === undefined) problems.push(`${where}: "${field}" is missing`);
  }
  if (manifest.type !== 'module') problems.push(`${where}: "type" must be "module" (ESM only)`);
  if (!manifest.engines?.node) problems.push(`${where}: "engines.node" is missing (">=20.19")`);
  if (!manifest.exports?.['./package.json']) problems.push(`${where}: exports must include "./package.json"`);
  const library = manifest.exports?.['.'] !== undefined;
  if (library && manifest.sideEffects === undefined) problems.push(`${where}: "sideEffects" is missing`);
  if (library && !manifest.exports['.'].types) problems.push(`${where}: exports["."] has no "types"`);
  for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
    if (name === '@delta/testkit') problems.push(`${where}: depends on the private @delta/testkit (make it a devDependency)`);
    if (typeof range === 'string' && range.startsWith('file:')) problems.push(`${where}: dependency ${name} is a file: link`);
  }
}

function compare(where, declared, used, kind) {
  for (const [name, file] of used) {
    if (name === where.name) continue;
    if (!declared.has(name))
      problems.push(`${where.file}: ${file} imports "${name}" but it is not in "dependencies" or "peerDependencies" (${kind})`);
  }
  for (const name of declared) {
    if (!used.has(name))
      problems.push(
        `${where.file}: "${name}" is declared but ${kind === 'src' ? 'src/ never imports it' : 'dist/ never imports it at runtime (bundled or unused: make it a devDependency)'}`,
      );
  }
}

function checkDependencies({ directory, manifest }) {
  const where = { file: relative(root, join(directory, 'package.json')), name: manifest.name };
  // A peer (optional ones included: the CLI's scale-out and OpenTelemetry packages) is declared too.
  const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const bundledApp = manifest.bin !== undefined;
  if (bundledApp) {
    const dist = join(directory, 'dist');
    if (!existsSync(dist)) return problems.push(`${where.file}: no dist/ (run pnpm build first)`);
    compare(where, declared, importedPackages(filesUnder(dist, (name) => name.endsWith('.js'))), 'dist');
  } else {
    const sources = filesUnder(
      join(directory, 'src'),
      (name) => /\.[cm]?[jt]s$/.test(name) && !name.endsWith('.d.ts') && !isTestFile(name),
    );
    compare(where, declared, importedPackages(sources), 'src');
  }
}

const packages = publicPackages();
const lints = await Promise.all(
  packages.map(async ({ directory, manifest }) => {
    const { messages } = await publint({ pkgDir: directory, level: 'warning', strict: true, pack: 'pnpm' });
    return messages.map((message) => `${relative(root, directory)}: publint: ${formatMessage(message, manifest) ?? message.code}`);
  }),
);
for (const lint of lints) problems.push(...lint);
for (const entry of packages) {
  checkMetadata(entry);
  checkDependencies(entry);
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  console.error(`check-packages: ${problems.length} problem(s) in ${packages.length} public packages`);
  process.exit(1);
}
console.log(`check-packages: ${packages.length} public packages: publint clean, metadata complete, dependencies match imports`);
