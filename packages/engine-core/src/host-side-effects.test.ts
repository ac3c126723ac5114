import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm } from '@delta/testkit';
import { loadAgent, startRun } from './index.js';

// A program that imports @delta/engine keeps its process as it was: no V8 flag set, no environment
// variable added, changed or removed, no signal handler left, even after a step large enough that the
// engine would collect garbage early (a 30 MB tool argument) when its host offers `gc`.

afterEach(cleanupTestResources);

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;

describe('the engine as a library', () => {
  it('leaves V8 flags, process.env and signal handlers of its host unchanged across a run with a 30 MB tool argument', async () => {
    // This test process was started without --expose-gc: a new context has no gc unless a flag is set.
    expect(runInNewContext('typeof gc')).toBe('undefined');
    const env = { ...process.env };
    const listeners = SIGNALS.map((signal) => process.listenerCount(signal));
    const large = 'x'.repeat(30_000_000);
    const server = await startFakeLlm({
      script: [{ tool_calls: [{ name: 'count', arguments: { text: large } }] }, { content: 'counted' }],
    });
    const home = await createTempAgent({
      agentYaml: {
        name: 'host',
        llm: { model: 'm', max_retries: 0 },
        tools: [{ name: 'count', description: 'Count bytes', exec: 'wc -c', stdin: 'text' }],
      },
    });
    const result = await startRun({
      agent: loadAgent(home),
      message: 'count it',
      workDir: join(await createTempDir('host-'), 'w'),
      apiKey: 'k',
      baseUrl: server.baseUrl,
    });
    expect(result.status).toBe('COMPLETED');
    expect(runInNewContext('typeof gc')).toBe('undefined');
    expect(process.env).toEqual(env);
    expect(SIGNALS.map((signal) => process.listenerCount(signal))).toEqual(listeners);
  });
});
