import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { subAgentWorkspacesInPrivateTmp } from './private-tmp-sub-agents.js';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function workspace(path: string, journalAgeMs: number): void {
  const run = join(root, path, '.delta', '20261128_120000_abcdef');
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'journal.jsonl'), '');
  const when = new Date(Date.now() - journalAgeMs);
  utimesSync(join(run, 'journal.jsonl'), when, when);
}

describe('subAgentWorkspacesInPrivateTmp', () => {
  it('finds the workspaces of runs written since the call began, as the tools see them, and follows no link', () => {
    root = mkdtempSync(join(tmpdir(), 'private-tmp-'));
    workspace('job', 0);
    workspace('deep/er/job2', 0);
    workspace('old', 60_000);
    mkdirSync(join(root, 'elsewhere'));
    symlinkSync(join(root, 'job'), join(root, 'elsewhere', 'link'));
    expect(subAgentWorkspacesInPrivateTmp(root, Date.now() - 10_000).sort()).toEqual(['/tmp/deep/er/job2', '/tmp/job']);
  });
});
