import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { copyExample, latestRun, observation, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/1-basics/file-reader', () => {
  it('reads an existing workspace given with -w and writes summary.md there', async () => {
    const agent = await copyExample('1-basics/file-reader');
    const workspace = join(await createTempDir('lantern-'), 'lantern');
    cpSync(join(agent, 'sample-workspace'), workspace, { recursive: true });

    const result = await runScripted(join(agent, 'fake-llm.yaml'), [
      'run',
      '--agent',
      agent,
      '-w',
      workspace,
      '-m',
      'Summarise these files',
      '-y',
    ]);
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('I read the 3 files and wrote summary.md.\n');

    const summary = readFileSync(join(workspace, 'summary.md'), 'utf8');
    expect(summary).toMatch(/^3 files read\.\n/);
    expect(summary).toContain('## notes/meeting-2025-03-04.md');
    const { metadata, journal } = latestRun(workspace);
    expect(metadata).toMatchObject({ status: 'COMPLETED', iterations: 5 });
    // The default directory "." was used; .delta is left out of the listing.
    expect(observation(journal, 'call_1_1').split('\n').sort()).toEqual([
      './README.txt',
      './notes/ideas.md',
      './notes/meeting-2025-03-04.md',
    ]);
    // Two calls in one iteration, and -n${lines} as one argument: only the first 4 lines.
    expect(observation(journal, 'call_2_2')).toContain('Ada fixes the broken links');
    expect(observation(journal, 'call_3_1').trim().split('\n')).toEqual([
      '# Ideas',
      '',
      '1. Dark mode for the generated site.',
      '2. A search box backed by a prebuilt index.',
    ]);
    expect(readFileSync(join(latestRun(workspace).runDir, 'io/tool_executions/call_3_1/command.txt'), 'utf8')).toContain(
      'head -n4 -- notes/ideas.md',
    );
  });
});
