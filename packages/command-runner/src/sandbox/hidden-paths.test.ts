import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hiddenPathsNote, pathsHiddenBySandbox } from './hidden-paths.js';
import type { SandboxPolicy } from './sandbox-policy.js';

// Under /tmp itself, whatever TMPDIR says: that is what the sandbox's private /tmp hides.
const root = mkdtempSync('/tmp/delta-hidden-paths-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
const make = (name: string) => {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, 'x.py'), '');
  return path;
};
const outside = make('outside');
const workspace = make('workspace');
const writable = make('writable');
const agent = make('agent');
const policy: SandboxPolicy = {
  mode: 'workspace-write',
  network: true,
  workspace,
  protectedPaths: [],
  visiblePaths: [agent],
  writablePaths: [writable],
};

describe('pathsHiddenBySandbox', () => {
  it('finds existing paths under /tmp in a word, after = or :, and inside a shell script', () => {
    const script = join(outside, 'x.py');
    expect(pathsHiddenBySandbox(policy, ['python3', script])).toEqual([script]);
    expect(pathsHiddenBySandbox(policy, [`--file=${script}`])).toEqual([script]);
    expect(pathsHiddenBySandbox(policy, ['bash', '-c', `cd ${workspace} && python3 '${script}' | tee out`])).toEqual([script]);
    expect(pathsHiddenBySandbox(policy, ['delta', 'run', '--agent', `${outside}/`])).toEqual([outside]);
  });

  it('leaves out what the sandbox binds through (workspace, writable_paths, the agent) and what does not exist', () => {
    expect(pathsHiddenBySandbox(policy, [join(workspace, 'x.py'), join(writable, 'x.py'), join(agent, 'x.py')])).toEqual([]);
    expect(pathsHiddenBySandbox(policy, [join(outside, 'missing.py'), '/tmpfoo/x', '/var/tmp/x'])).toEqual([]);
  });

  it('says how to fix it, naming at most three paths', () => {
    expect(hiddenPathsNote(['/tmp/a'])).toMatch(
      /^Note: \/tmp\/a exists on this machine but not inside the sandbox .* sandbox\.writable_paths/,
    );
    expect(hiddenPathsNote(['/tmp/a', '/tmp/b', '/tmp/c', '/tmp/d', '/tmp/e'])).toMatch(
      /^Note: \/tmp\/a, \/tmp\/b, \/tmp\/c and 2 more exist on/,
    );
  });
});
