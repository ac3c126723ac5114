#!/usr/bin/env node
// Runs every package's tests through turbo, then prints one plain closing line that CI reads:
// "N passed, N failed, N skipped". Extra arguments are passed to `turbo run test`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
/** The workspace packages, from pnpm-workspace.yaml's `packages:` list (`dir/*` globs and plain directories). */
function workspaceDirectories() {
  const text = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const list = text.split('\n\n')[0] ?? '';
  const patterns = [...list.matchAll(/^\s+-\s+['"]?([^'"\s]+)['"]?\s*$/gm)].map((match) => match[1]);
  const directories = [];
  for (const pattern of patterns) {
    if (!pattern.endsWith('/*')) {
      directories.push(join(root, pattern));
      continue;
    }
    const base = join(root, pattern.slice(0, -2));
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base, { withFileTypes: true })) {
      if (entry.isDirectory()) directories.push(join(base, entry.name));
    }
  }
  return directories.filter((directory) => existsSync(join(directory, 'package.json')));
}

const reports = workspaceDirectories().map((directory) => join(directory, '.test-report.json'));
for (const report of reports) rmSync(report, { force: true });

// One failing package does not cancel the others: the closing line counts the whole suite.
const result = spawnSync('pnpm', ['exec', 'turbo', 'run', 'test', '--continue=dependencies-successful', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { TURBO_TELEMETRY_DISABLED: '1', ...process.env },
});

let passed = 0;
let failed = 0;
let skipped = 0;
/** The failed tests, named again at the end: CI keeps only the tail of the output. */
const failures = [];
for (const report of reports) {
  if (!existsSync(report)) continue;
  const summary = JSON.parse(readFileSync(report, 'utf8'));
  for (const file of summary.testResults ?? []) {
    const where = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) failures.push({ where, title: test.fullName ?? test.title, messages: test.failureMessages ?? [] });
    if (file.status === 'failed' && failedTests.length === 0) failures.push({ where, title: '(the file)', messages: [file.message ?? ''] });
  }
  passed += summary.numPassedTests ?? 0;
  failed += summary.numFailedTests ?? 0;
  skipped += (summary.numPendingTests ?? 0) + (summary.numTodoTests ?? 0);
  // A test file that fails to load has no tests to count; it still fails the run.
  for (const file of summary.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
  }
}
let exitCode = result.status ?? 1;
if (failed > 0 && exitCode === 0) exitCode = 1;
if (exitCode !== 0 && failed === 0) {
  console.error('A test task failed before its tests reported (see the output above).');
  failed = 1;
}
for (const failure of failures) {
  console.log(`\nFAILED ${failure.where} > ${failure.title}`);
  const message = failure.messages.join('\n').split('\n').slice(0, 12).join('\n');
  if (message.trim() !== '') console.log(message);
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(exitCode);
