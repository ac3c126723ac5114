import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScript } from '@delta/testkit';
import { DELTA_BIN, EXAMPLES, PATH_WITH_EXAMPLE_BINS, REPOSITORY_ROOT, runProcess } from './run-delta.js';

describe('the learning path', () => {
  it.each(EXAMPLES)('%s has its files and loads with `delta tool expand`', async (example) => {
    const agent = join(REPOSITORY_ROOT, 'examples', example);
    for (const file of ['agent.yaml', 'system_prompt.md', 'context.yaml', 'README.md', 'fake-llm.yaml']) {
      expect(existsSync(join(agent, file)), `${example}/${file}`).toBe(true);
    }
    expect(loadScript(join(agent, 'fake-llm.yaml')).length).toBeGreaterThan(0);
    // mcp-files starts its MCP server to list its tools.
    const expanded = await runProcess(process.execPath, [DELTA_BIN, 'tool', 'expand', agent], { env: { PATH: PATH_WITH_EXAMPLE_BINS } });
    expect(expanded.stderr).toBe('');
    expect(expanded.exitCode).toBe(0);
    expect(expanded.stdout).toMatch(/^tools:( \[\])?\n/);
    // Every tool the README's table or text names is a tool of the agent.
    const readme = readFileSync(join(agent, 'README.md'), 'utf8');
    const tools = [...expanded.stdout.matchAll(/^ {2}- name: (\S+)$/gm)].map((match) => match[1]!);
    for (const tool of tools) expect(readme, `${example}/README.md mentions ${tool}`).toContain(tool);
  });

  it('only delta-agent-generator has a tool that receives the model credentials', async () => {
    for (const example of EXAMPLES) {
      const expanded = await runProcess(process.execPath, [DELTA_BIN, 'tool', 'expand', join(REPOSITORY_ROOT, 'examples', example)], {
        env: { PATH: PATH_WITH_EXAMPLE_BINS },
      });
      expect(expanded.stdout.includes('pass_model_credentials: true'), example).toBe(example === '3-advanced/delta-agent-generator');
    }
  });
});
