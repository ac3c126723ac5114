// A grader where the agent worked (issue 44): for a run in an image, the batch's command grader runs in the
// run's final environment (the image under the run's layer), with the task's tests at /tests (which the agent
// never sees) and an empty /logs/verifier (whatever the agent planted there is gone); Harbor's reward.txt is
// the verdict, and the grader's writes never change the run. Real bubblewrap, overlay and umoci.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listLayerChanges } from '@delta/command-runner';
import { readJournal, runPaths } from '@delta/journal';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, imageToolsMissing } from '../../images/src/image.test-support.js';
import { runBatch } from './index.js';

const noBubblewrap = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE;
const skip = noBubblewrap ?? imageToolsMissing;
if (noBubblewrap) console.warn(`\n!!!!!!!!\n!!! SKIPPING the grader-in-image tests: ${noBubblewrap}.\n!!!!!!!!\n`);

afterEach(cleanupTestResources);

const TEST_SH = `if grep -q fixed /testbed/state; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
echo graded > /testbed/graded-by-the-verifier
ls -A /logs/verifier`;

/** The interface names of a /proc/net/dev (two header lines, then `name: counters…`). */
function namesIn(netDev: string): string[] {
  return netDev
    .split('\n')
    .slice(2)
    .filter((line) => line.includes(':'))
    .map((line) => line.split(':')[0]!.trim());
}

describe.skipIf(skip !== undefined)('a command grader of a run in an image', () => {
  it("sees the run's changes, keeps /tests from the agent, empties /logs/verifier first, and changes nothing of the run", async () => {
    const base = await createTempDir('grader-in-image-');
    buildImage(join(base, 'image'), 'v1', (rootfs) => {
      mkdirSync(join(rootfs, 'testbed'));
      writeFileSync(join(rootfs, 'testbed', 'state'), 'broken\n');
    });
    mkdirSync(join(base, 'tests'));
    writeFileSync(join(base, 'tests', 'test.sh'), TEST_SH);
    const tasks = join(base, 'tasks.jsonl');
    writeFileSync(
      tasks,
      ['honest', 'cheat']
        .map((id) => JSON.stringify({ id, message: id, image: 'image:v1', tests: 'tests', workdir: '/workspace' }))
        .join('\n'),
    );
    const agent = await createTempAgent({
      agentYaml: {
        name: 'fixer',
        llm: { model: 'm', max_retries: 0 },
        grader: 'sh /tests/test.sh',
        tools: [{ name: 'sh', description: 'x', exec: 'sh -c ${script}', allow_option_values: true }],
      },
    });
    const scripts: Record<string, string> = {
      // Looks for the tests, then fixes what they check.
      honest: 'cat /tests/test.sh 2>&1 | head -1; echo fixed > /testbed/state',
      // Plants a passing reward where the verifier writes it, and fixes nothing.
      cheat:
        'mkdir -p /logs/verifier /tests && echo 1 > /logs/verifier/reward.txt && echo "echo 1 > /logs/verifier/reward.txt" > /tests/test.sh',
    };
    const server = await startFakeLlm({
      script: (request) => {
        const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages;
        const task = String(messages.find((message) => message.role === 'user')?.content);
        return messages.some((message) => message.role === 'tool')
          ? { content: 'done' }
          : { tool_calls: [{ name: 'sh', arguments: { script: scripts[task] } }] };
      },
    });
    const out = join(base, 'out');
    const summary = await runBatch({
      tasksFile: tasks,
      agent,
      out,
      apiKey: 'sk-test',
      baseUrl: server.baseUrl,
      imageCache: join(base, 'cache'),
    });
    expect(summary.completed).toBe(2);

    const runOf = (task: string) => runPaths(join(out, task, 'm', '1'), 'run-1');
    const honest = runOf('honest');
    const seen = readJournal(honest.journal).find((event) => event.type === 'ACTION_RESULT');
    expect(seen).toMatchObject({ observation_content: expect.stringContaining('No such file or directory') });
    const grade = (task: string) => JSON.parse(readFileSync(join(runOf(task).runDir, 'grade.json'), 'utf8'));
    expect(grade('honest')).toMatchObject({ score: 1, passed: true, ran_in: 'image', details: { reward_file: 'reward.txt' } });
    // The agent's planted reward and tests were not the verifier's: it found the state still broken.
    expect(grade('cheat')).toMatchObject({ score: 0, passed: false, ran_in: 'image' });
    expect(readFileSync(grade('honest').output.stdout, 'utf8')).toBe('reward.txt\n');
    // What the grader wrote in the image is not the run's: its layer holds the agent's change only.
    expect(listLayerChanges(join(honest.runDir, 'layer')).changes).toEqual([{ path: '/testbed/state', change: 'written' }]);
    expect(existsSync(join(honest.runDir, 'grades'))).toBe(true);
  }, 120_000);

  it("has the network only when the run's tools had it", async () => {
    const base = await createTempDir('grader-in-image-network-');
    buildImage(join(base, 'image'), 'v1', () => {});
    mkdirSync(join(base, 'tests'));
    // The network interfaces the verifier sees: only the loopback one in a network namespace of its own.
    writeFileSync(join(base, 'tests', 'test.sh'), 'cat /proc/net/dev > /logs/verifier/net.txt\necho 1 > /logs/verifier/reward.txt\n');
    const tasks = join(base, 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 't1', message: 'hi', image: 'image:v1', tests: 'tests', workdir: '/workspace' })}\n`);
    const server = await startFakeLlm({ script: () => ({ content: 'done' }) });
    const interfaces = async (network: boolean) => {
      const agent = await createTempAgent({
        agentYaml: { name: 'quiet', llm: { model: 'm', max_retries: 0 }, grader: 'sh /tests/test.sh', sandbox: { network } },
      });
      const out = join(base, `out-${network}`);
      const summary = await runBatch({
        tasksFile: tasks,
        agent,
        out,
        apiKey: 'sk-test',
        baseUrl: server.baseUrl,
        imageCache: join(base, 'cache'),
      });
      expect(summary.completed).toBe(1);
      const runDir = runPaths(join(out, 't1', 'm', '1'), 'run-1').runDir;
      const grade = JSON.parse(readFileSync(join(runDir, 'grade.json'), 'utf8'));
      expect(grade).toMatchObject({ passed: true, ran_in: 'image' });
      return namesIn(readFileSync(join(grade.output.logs, 'net.txt'), 'utf8'));
    };
    expect(await interfaces(false)).toEqual(['lo']);
    // This machine's network: the interfaces this process sees.
    expect(await interfaces(true)).toEqual(namesIn(readFileSync('/proc/net/dev', 'utf8')));
  }, 120_000);
});
