import { cleanupTempDirs } from './temp-dirs.js';

interface Closable {
  close(): Promise<void>;
}

const openServers = new Set<Closable>();

/** startFakeLlm registers each server here; its close() unregisters it. */
export function trackServer(server: Closable): void {
  openServers.add(server);
}

export function untrackServer(server: Closable): void {
  openServers.delete(server);
}

/**
 * Closes every fake model server started (startFakeLlm) and not yet closed, and removes every temp
 * directory made, since the last call: `afterEach(cleanupTestResources)`. A server the test closed
 * itself is skipped; closing twice is harmless anyway.
 */
export async function cleanupTestResources(): Promise<void> {
  const servers = [...openServers];
  openServers.clear();
  await Promise.all(servers.map((server) => server.close()));
  await cleanupTempDirs();
}

/** The environment that points the CLI at a fake model server: `{ DELTA_API_KEY: 'k', DELTA_BASE_URL }`. */
export function modelEnv(server: { baseUrl: string }): { DELTA_API_KEY: string; DELTA_BASE_URL: string } {
  return { DELTA_API_KEY: 'k', DELTA_BASE_URL: server.baseUrl };
}
