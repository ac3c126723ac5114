// A tool that writes 200 MiB: the whole output lands in stdout.log, the model gets a bounded observation
// that names the log, and the engine's memory stays bounded while it streams.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@delta/command-runner';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { loadAgent, startRun } from './index.js';

const SIZE = 200 * 1024 * 1024;
const MEBIBYTE = 1024 * 1024;

afterEach(cleanupTestResources);

describe('a 200 MiB tool output', () => {
  it('is streamed whole to stdout.log while the engine keeps a bounded observation and bounded memory', async () => {
    // Load what a run loads lazily, so that the baseline is the engine at rest, not before its imports.
    await import('openai');
    await runCommand({ file: 'true', args: [], cwd: tmpdir(), env: {} });
    const server = await startFakeLlm({ script: [{ tool_calls: [{ name: 'flood', arguments: {} }] }, { content: 'done' }] });
    const agent = loadAgent(
      await createTempAgent({
        agentYaml: {
          name: 'flood',
          llm: { model: 'm', max_retries: 0 },
          tools: [{ name: 'flood', description: 'Write 200 MiB', shell: `head -c ${SIZE} /dev/zero | tr '\\0' x; echo END` }],
        },
      }),
    );
    const workDir = join(await createTempDir('work-'), 'w');

    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    let result;
    try {
      result = await startRun({ agent, message: 'flood', workDir, apiKey: 'k', baseUrl: server.baseUrl });
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);

    const [execution] = readdirSync(result.paths.toolExecutionsDir);
    const stdoutLog = join(result.paths.toolExecutionsDir, execution!, 'stdout.log');
    try {
      expect(result.status).toBe('COMPLETED');
      expect(statSync(stdoutLog).size).toBe(SIZE + 'END\n'.length);

      const messages = server.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
      const observation = messages.find((message) => message.role === 'tool')!.content;
      expect(Buffer.byteLength(observation)).toBeLessThan(200 * 1024);
      expect(observation.startsWith('xxxx')).toBe(true);
      expect(observation.endsWith('xxxxEND')).toBe(true);
      expect(observation).toContain(
        `bytes omitted of ${SIZE + 4}; the full output is in .delta/${result.runId}/io/tool_executions/${execution}/stdout.log`,
      );

      expect((peak - baseline) / MEBIBYTE).toBeLessThan(100);
    } finally {
      rmSync(stdoutLog, { force: true });
    }
  }, 30_000);
});
