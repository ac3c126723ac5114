#!/usr/bin/env node
// Checks that every public library package exports only what its documentation names. A package's
// documentation is its README.md, plus docs/library.md when the README links to it. An exported name
// counts as documented when it appears as a word inside a code span (`name`) or a fenced code block.
// Reads src/index.ts (following re-exports within the package), so no build is needed.
// Usage: node scripts/check-exports.mjs [--root <repository>]. Exit 1 with one line per undocumented export.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const rootIndex = process.argv.indexOf('--root');
const root = resolve(rootIndex > 0 ? process.argv[rootIndex + 1] : new URL('..', import.meta.url).pathname);
const LIBRARY_GUIDE = 'docs/library.md';

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

/** Every name a module exports, following `export * from './x.js'` into the package's own files. */
function exportedNames(file, seen = new Set()) {
  const names = new Set();
  if (seen.has(file)) return names;
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) for (const element of clause.elements) names.add(element.name.text);
      else if (clause && ts.isNamespaceExport(clause)) names.add(clause.name.text);
      else {
        const specifier = statement.moduleSpecifier.text;
        if (!specifier.startsWith('.'))
          throw new Error(`${relative(root, file)}: "export * from '${specifier}'" cannot be checked: name each export`);
        for (const name of exportedNames(sourceFileOf(file, specifier), seen)) names.add(name);
      }
    } else if (ts.isExportAssignment(statement)) {
      names.add('default');
    } else if (hasExportModifier(statement)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) bindingNames(declaration.name, names);
      } else if (statement.name) {
        const isDefault = ts.getModifiers(statement).some((modifier) => modifier.kind === ts.SyntaxKind.DefaultKeyword);
        names.add(isDefault ? 'default' : statement.name.text);
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

let undocumentedCount = 0;
const packages = libraryPackages();
for (const entry of packages) {
  const where = relative(root, entry.directory);
  let names;
  try {
    names = exportedNames(entry.entry);
  } catch (error) {
    console.error(`${where}: ${error.message}`);
    undocumentedCount += 1;
    continue;
  }
  const { files, words } = documentationOf(entry.directory);
  const undocumented = [...names].filter((name) => !words.has(name)).sort();
  if (undocumented.length === 0) continue;
  undocumentedCount += undocumented.length;
  const documents = files.length > 0 ? files.join(' or ') : `${where}/README.md (there is none yet)`;
  console.error(`${entry.name} (${relative(root, entry.entry)}): ${undocumented.length} of ${names.size} exports undocumented:`);
  for (const name of undocumented) console.error(`  ${name}`);
  console.error(`  fix: document each in ${documents} (as \`name\` in its API section), or stop exporting it`);
}

if (undocumentedCount > 0) {
  console.error(`check-exports: ${undocumentedCount} undocumented export(s) in ${packages.length} library packages`);
  process.exit(1);
}
console.log(`check-exports: ${packages.length} library packages export only what their READMEs document`);
