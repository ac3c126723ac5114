import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempDir, modelEnv, startFakeLlm } from './index.js';

afterEach(cleanupTestResources);

async function models(server: { baseUrl: string }): Promise<number> {
  return (await fetch(`${server.baseUrl}/models`)).status;
}

describe('cleanupTestResources', () => {
  it('closes every fake server the test left open and removes its temp dirs', async () => {
    const first = await startFakeLlm({ script: [{ content: 'hi' }] });
    const second = await startFakeLlm({ script: [{ content: 'hi' }] });
    const dir = await createTempDir();
    expect(await models(first)).toBe(200);
    expect(await models(second)).toBe(200);

    await cleanupTestResources();

    for (const server of [first, second]) {
      const refused = await fetch(`${server.baseUrl}/models`).catch((error: Error & { cause?: { code?: string } }) => error.cause?.code);
      expect(refused).toBe('ECONNREFUSED');
    }
    expect(existsSync(dir)).toBe(false);
  });

  it('is harmless for a server the test closed itself, and closing twice is harmless', async () => {
    const server = await startFakeLlm({ script: [{ content: 'hi' }] });
    await server.close();
    await server.close();
    await cleanupTestResources();
    await server.close();
  });

  it('leaves a server started after the cleanup running until the next one', async () => {
    await cleanupTestResources();
    const server = await startFakeLlm({ script: [{ content: 'hi' }] });
    expect(await models(server)).toBe(200);
  });
});

describe('modelEnv', () => {
  it("gives the CLI's key and base URL for a fake server", async () => {
    const server = await startFakeLlm({ script: [{ content: 'hi' }] });
    expect(modelEnv(server)).toEqual({ DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl });
  });
});
