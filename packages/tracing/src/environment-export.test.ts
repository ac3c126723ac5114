import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JournalEvent } from '@delta/journal';
import { describe, expect, it } from 'vitest';
import { startOtlpReceiver } from '@delta/testkit';
import { liveExportFromEnvironment } from './environment-export.js';

/** A port where nothing listens (it did a moment ago). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const start = {
  seq: 1,
  timestamp: new Date(Date.UTC(2026, 10, 23, 12)).toISOString(),
  type: 'ENGINE_START',
  run_id: 'r1',
  agent_home: '/a',
  work_dir: '/w',
  agent_name: 'writer',
  model: 'gpt-x',
} as unknown as JournalEvent;

describe('liveExportFromEnvironment', () => {
  it('is undefined without OTEL_EXPORTER_OTLP_ENDPOINT, or with it blank', () => {
    const warnings: string[] = [];
    expect(liveExportFromEnvironment({}, (text) => warnings.push(text))).toBeUndefined();
    expect(liveExportFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, (text) => warnings.push(text))).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('closes without a warning when the collector takes the spans', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const warnings: string[] = [];
      const live = liveExportFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, (text) => warnings.push(text));
      live!.onEvent(start);
      await live!.close();
      expect(warnings).toEqual([]);
      expect(receiver.spans.map((span) => span.name)).toEqual(['invoke_agent writer']);
    } finally {
      await receiver.close();
    }
  });

  it('warns, and does not throw, when the collector cannot be reached', async () => {
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const warnings: string[] = [];
    const live = liveExportFromEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_TIMEOUT: '300' }, (text) =>
      warnings.push(text),
    );
    live!.onEvent(start);
    await expect(live!.close()).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: tracing: .+ The run is recorded; `delta export otel` sends it again\.\n$/);
  });
});
