import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempDir } from '@delta/testkit';
import { copyExample, latestRun, PATH_WITH_EXAMPLE_BINS, runScripted } from './run-delta.js';

afterEach(cleanupTempDirs);

describe('examples/2-core-features/mcp-files', () => {
  it("reads and writes the workspace through the real filesystem server's tools", async () => {
    const agent = await copyExample('2-core-features/mcp-files');
    const workspace = join(await createTempDir('harbour-'), 'harbour');
    cpSync(join(agent, 'sample-workspace'), workspace, { recursive: true });

    const result = await runScripted(
      join(agent, 'fake-llm.yaml'),
      ['run', '--agent', agent, '-w', workspace, '-m', 'Summarise these files'],
      {
        // The server is this package's devDependency; a user installs it (docs/mcp.md).
        env: { PATH: PATH_WITH_EXAMPLE_BINS },
      },
    );
    expect(result.stderr).toContain('ended: COMPLETED');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('I read the 2 files and wrote summary.md.\n');
    // Written by the server, in the workspace.
    expect(readFileSync(join(workspace, 'summary.md'), 'utf8')).toMatch(/^2 files read\.\n\n## harbour\.txt\n/);

    const { journal, runDir } = latestRun(workspace);
    const results = journal.filter((event) => event.type === 'ACTION_RESULT');
    expect(results.map((event) => [event.tool_name, event.status])).toEqual([
      ['mcp__files__list_directory', 'SUCCESS'],
      ['mcp__files__read_text_file', 'SUCCESS'],
      ['mcp__files__read_text_file', 'SUCCESS'],
      ['mcp__files__write_file', 'SUCCESS'],
    ]);
    const [listed, harbour, crew] = results.map((event) => (event.type === 'ACTION_RESULT' ? event.observation_content : ''));
    expect(listed!.split('\n').sort()).toEqual(['[DIR] .delta', '[FILE] crew.md', '[FILE] harbour.txt']);
    expect(harbour).toBe(readFileSync(join(workspace, 'harbour.txt'), 'utf8'));
    expect(crew).toBe('# Crew\n\n- Ines: skipper\n- Tom: engine\n');
    expect(readFileSync(join(runDir, 'mcp', 'files.stderr.log'), 'utf8')).toContain('Secure MCP Filesystem Server');
  });
});
