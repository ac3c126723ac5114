// A tool with a typo and a template problem: both reported in the same round, by `delta tool expand` and by
// a run's load of the agent (the real built CLI).
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { runDelta } from './test-support.js';

afterEach(() => cleanupTempDirs());

const STACK_FRAME = /^\s+at /m;

describe('every problem of every tool in one round', () => {
  it("reports a single-quoted ${x} and a typo of the same tool in one round, on tool expand and on a run's load", async () => {
    const agent = await createTempAgent({
      agentYaml:
        "name: bad\nllm:\n  model: m\ntools:\n  - name: quoted\n    descripton: Echo it\n    shell: \"echo '${x}'\"\n  - name: other\n    shell: \"printf '%s' '${y}'\"\n",
    });
    for (const args of [
      ['tool', 'expand', agent],
      ['run', '--agent', agent, '-y', '-m', 'hi'],
    ]) {
      const result = await runDelta(args);
      expect(result.exitCode).toBe(2);
      const yaml = join(agent, 'agent.yaml');
      expect(result.stderr).toContain(`Error: The agent ${agent} has 2 configuration errors:`);
      expect(result.stderr).toContain(`${yaml}:5:5 tool 'quoted' has 2 problems:`);
      expect(result.stderr).toContain("tools[0].descripton: Unknown tool key 'descripton': did you mean 'description'?");
      expect(result.stderr).toContain(
        "tools[0].shell: A placeholder inside single quotes would not be substituted. Expected placeholders outside single quotes, found '${x}' at column 6.",
      );
      expect(result.stderr).toMatch(/tools\[1\]\.shell: A placeholder inside single quotes would not be substituted\. .*found '\$\{y\}'/);
      expect(result.stderr).not.toMatch(STACK_FRAME);
    }
  });
});
