#!/usr/bin/env node
// Checks that every public library package exports only what its documentation names. A package's
// documentation is its README.md, plus docs/library.md when the README links to it. An exported name
// counts as documented when it appears as a word inside a code span (`name`) or a fenced code block.
// Reads src/index.ts (following re-exports within the package), so no build is needed.
// With --unused (as CI runs it) it also fails on a value export that no other package, app, script or
// example uses (no source file that names the package names it) and no fenced example of any markdown file
// shows: an unused export is a promise nobody asked for.
// Usage: node scripts/check-exports.mjs [--root <repository>] [--unused]. Exit 1 with one line per such export.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const rootIndex = process.argv.indexOf('--root');
const root = resolve(rootIndex > 0 ? process.argv[rootIndex + 1] : new URL('..', import.meta.url).pathname);
const LIBRARY_GUIDE = 'docs/library.md';
const checkUnused = process.argv.includes('--unused');

function libraryPackages() {
  const found = [];
  for (const group of ['packages', 'apps']) {
    if (!existsSync(join(root, group))) continue;
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      const directory = join(root, group, entry.name);
      const file = join(directory, 'package.json');
      if (!entry.isDirectory() || !existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      const entryPoint = manifest.exports?.['.']?.['@delta/source'] ?? (manifest.exports?.['.'] ? './src/index.ts' : undefined);
      if (!manifest.private && entryPoint) found.push({ directory, name: manifest.name, entry: join(directory, entryPoint) });
    }
  }
  return found;
}

/** The source file a relative specifier names: `./x.js` is `./x.ts`, a directory its index. */
function sourceFileOf(fromFile, specifier) {
  const base = resolve(dirname(fromFile), specifier).replace(/\.[cm]?js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${relative(root, fromFile)}: cannot find the module "${specifier}" it re-exports`);
}

const hasExportModifier = (node) => ts.getModifiers?.(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);

function bindingNames(name, into) {
  if (ts.isIdentifier(name)) into.add(name.text);
  else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bindingNames(element.name, into);
}

/**
 * Every name a module exports, following `export * from './x.js'` into the package's own files. With
 * `values`, the names that are values (not `export type`, not an interface or a type alias) go there too.
 */
function exportedNames(file, seen = new Set(), values = new Set()) {
  const names = new Set();
  if (seen.has(file)) return names;
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          names.add(element.name.text);
          if (!statement.isTypeOnly && !element.isTypeOnly) values.add(element.name.text);
        }
      } else if (clause && ts.isNamespaceExport(clause)) {
        names.add(clause.name.text);
        if (!statement.isTypeOnly) values.add(clause.name.text);
      } else {
        const specifier = statement.moduleSpecifier.text;
        if (!specifier.startsWith('.'))
          throw new Error(`${relative(root, file)}: "export * from '${specifier}'" cannot be checked: name each export`);
        for (const name of exportedNames(sourceFileOf(file, specifier), seen, values)) names.add(name);
      }
    } else if (ts.isExportAssignment(statement)) {
      names.add('default');
      values.add('default');
    } else if (hasExportModifier(statement)) {
      const isType = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
      if (ts.isVariableStatement(statement)) {
        const declared = new Set();
        for (const declaration of statement.declarationList.declarations) bindingNames(declaration.name, declared);
        for (const name of declared) {
          names.add(name);
          values.add(name);
        }
      } else if (statement.name) {
        const isDefault = ts.getModifiers(statement).some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
        const name = isDefault ? 'default' : statement.name.text;
        names.add(name);
        if (!isType) values.add(name);
      }
    }
  }
  return names;
}

/** The words inside a markdown text's code spans and fenced code blocks. */
function codeWords(markdown) {
  const words = new Set();
  const addWords = (code) => {
    for (const word of code.match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
  };
  const prose = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (block) => {
    addWords(block);
    return '';
  });
  for (const match of prose.matchAll(/(`+)([\s\S]*?[^`])\1(?!`)/g)) addWords(match[2]);
  return words;
}

/** The documentation of a package: its README, plus the library guide when the README links to it. */
function documentationOf(directory) {
  const readme = join(directory, 'README.md');
  if (!existsSync(readme)) return { files: [], words: new Set() };
  const text = readFileSync(readme, 'utf8');
  const files = [relative(root, readme)];
  const words = codeWords(text);
  const guide = join(root, LIBRARY_GUIDE);
  if (text.includes(LIBRARY_GUIDE) && existsSync(guide)) {
    files.push(LIBRARY_GUIDE);
    for (const word of codeWords(readFileSync(guide, 'utf8'))) words.add(word);
  }
  return { files, words };
}

/** The words of the fenced code blocks (the examples) of every markdown file of the repository. */
function exampleWords() {
  const words = new Set();
  for (const file of filesUnder(root, (name) => name.endsWith('.md'))) {
    const text = readFileSync(file, 'utf8');
    for (const block of text.match(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm) ?? []) {
      for (const word of block.match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
    }
  }
  return words;
}

const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', '.git', '.turbo', 'coverage']);

function filesUnder(directory, wanted, found = []) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (SKIPPED_DIRECTORIES.has(entry.name) || entry.name.startsWith('.')) continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) filesUnder(path, wanted, found);
    else if (wanted(entry.name)) found.push(path);
  }
  return found;
}

const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

/**
 * The words of every source file outside `directory` that names the package (an import of it, static or
 * dynamic): a value export is used when one of them names it.
 */
function wordsOfUsers(directory, name) {
  const words = new Set();
  for (const file of filesUnder(root, (entry) => SOURCE.test(entry))) {
    if (file.startsWith(`${directory}/`)) continue;
    const text = readFileSync(file, 'utf8');
    if (!text.includes(`'${name}'`) && !text.includes(`"${name}"`) && !text.includes(`'${name}/`) && !text.includes(`"${name}/`)) continue;
    for (const word of text.match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(word);
  }
  return words;
}

let undocumentedCount = 0;
let unusedCount = 0;
const examples = checkUnused ? exampleWords() : new Set();
const packages = libraryPackages();
for (const entry of packages) {
  const where = relative(root, entry.directory);
  let names;
  const values = new Set();
  try {
    names = exportedNames(entry.entry, new Set(), values);
  } catch (error) {
    console.error(`${where}: ${error.message}`);
    undocumentedCount += 1;
    continue;
  }
  const { files, words } = documentationOf(entry.directory);
  const users = checkUnused ? wordsOfUsers(entry.directory, entry.name) : undefined;
  const unused = users ? [...values].filter((name) => !users.has(name) && !examples.has(name)).sort() : [];
  if (unused.length > 0) {
    unusedCount += unused.length;
    console.error(
      `${entry.name} (${relative(root, entry.entry)}): ${unused.length} of ${values.size} value exports used by no other package and no example:`,
    );
    for (const name of unused) console.error(`  ${name}`);
    console.error('  fix: stop exporting it (an unused export is a promise nobody asked for), or show it in a fenced example');
  }
  const undocumented = [...names].filter((name) => !words.has(name)).sort();
  if (undocumented.length === 0) continue;
  undocumentedCount += undocumented.length;
  const documents = files.length > 0 ? files.join(' or ') : `${where}/README.md (there is none yet)`;
  console.error(`${entry.name} (${relative(root, entry.entry)}): ${undocumented.length} of ${names.size} exports undocumented:`);
  for (const name of undocumented) console.error(`  ${name}`);
  console.error(`  fix: document each in ${documents} (as \`name\` in its API section), or stop exporting it`);
}

if (undocumentedCount > 0 || unusedCount > 0) {
  console.error(
    `check-exports: ${undocumentedCount} undocumented export(s), ${unusedCount} value export(s) nothing outside their package uses, in ${packages.length} library packages`,
  );
  process.exit(1);
}
console.log(
  `check-exports: ${packages.length} library packages export only what their READMEs document${checkUnused ? ', and only values another package or an example uses' : ''}`,
);
