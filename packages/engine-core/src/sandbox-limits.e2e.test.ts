// Limits per run from agent.yaml's sandbox.limits (issue 44), in a real run: what is asked for and how it is
// held is in ENGINE_START, a call that runs into one is told so, and ENGINE_END and metadata.json say which
// limits the run hit. The cgroups themselves: packages/command-runner/src/sandbox/run-sandbox-limits.test.ts.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { probeBubblewrap } from '@delta/command-runner';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

const probe = probeBubblewrap();
const unavailable = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
if (!probe.ok && unavailable)
  console.warn(`\n!!!!!!!!\n!!! SKIPPING the run limit tests: bubblewrap could not be installed (${unavailable}).\n!!!!!!!!\n`);
const isRoot = process.getuid?.() === 0;

afterEach(cleanupTestResources);

describe.skipIf(!probe.ok && unavailable !== undefined)("a run's sandbox.limits (real bubblewrap)", () => {
  it.skipIf(!isRoot)(
    'records the limits and how they are held, tells the model of a refused fork, and records the hit',
    async () => {
      const workDir = await createTempDir('limits-');
      const home = await createTempAgent({
        agentYaml: {
          name: 'limited',
          llm: { model: 'm', max_retries: 0 },
          sandbox: { limits: { processes: 30, memory: '256M' } },
          tools: [{ name: 'bomb', description: 'x', shell: 'for i in $(seq 80); do sleep 30 & done 2>/dev/null; echo forked' }],
        },
      });
      const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'bomb', arguments: {} }] }, { content: 'done' }] });
      const result = await startRun({ agent: loadAgent(home), message: 'go', workDir, apiKey: 'sk-test', baseUrl: server.baseUrl });
      expect(result.status).toBe('COMPLETED');
      const events = readJournal(result.paths.journal);
      expect(events.find((event) => event.type === 'ENGINE_START')).toMatchObject({
        sandbox: {
          limits: { processes: 30, memory_bytes: 256 * 1024 * 1024, enforced: { processes: expect.stringMatching(/^cgroup v[12]$/) } },
        },
      });
      const action = events.find((event) => event.type === 'ACTION_RESULT');
      expect(action).toMatchObject({
        observation_content: expect.stringContaining('Note: the run reached its process limit (30 processes'),
      });
      expect(events.at(-1)).toMatchObject({ type: 'ENGINE_END', limits_hit: ['processes'] });
      expect(JSON.parse(readFileSync(result.paths.metadata, 'utf8'))).toMatchObject({ limits_hit: ['processes'] });
    },
    60_000,
  );

  it('refuses a size it cannot read, naming the field and the fix', async () => {
    const home = await createTempAgent({
      agentYaml: { name: 'bad-limits', llm: { model: 'm' }, sandbox: { limits: { memory: 'lots', processes: 2 } } },
    });
    expect(() => loadAgent(home)).toThrow(
      /sandbox\.limits\.memory[\s\S]*"lots" is not a size[\s\S]*sandbox\.limits\.processes[\s\S]*at least 8/,
    );
  });
});
