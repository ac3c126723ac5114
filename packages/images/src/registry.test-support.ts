// A real registry on loopback for the tests: Debian's docker-registry (distribution), started here, pushed to
// with skopeo; and a tiny hostile one of our own, which serves what it is told.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';

export const registryMissing =
  spawnSync('docker-registry', ['--version']).error !== undefined
    ? (process.env.DELTA_TEST_REGISTRY_UNAVAILABLE ?? 'docker-registry (Debian package docker-registry) is not installed')
    : undefined;
if (registryMissing) console.warn(`\n!!!!!!!!\n!!! SKIPPING the registry tests: ${registryMissing}.\n!!!!!!!!\n`);

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface TestRegistry {
  host: string;
  stop(): Promise<void>;
}

/** Starts docker-registry on a loopback port, storing under `dir`; resolves once `GET /v2/` answers. */
export async function startRegistry(dir: string): Promise<TestRegistry> {
  const port = await freePort();
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    `version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: ${join(dir, 'storage')}}}\nhttp: {addr: 127.0.0.1:${port}}\n`,
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', config], { stdio: 'ignore' });
  const host = `127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    const answered = await fetch(`http://${host}/v2/`).then(
      (response) => response.ok,
      () => false,
    );
    if (answered) break;
    if (child.exitCode !== null || attempt > 400) throw new Error(`docker-registry did not answer on ${host}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return { host, stop: async () => void child.kill('SIGKILL') };
}

/** Pushes `source` (a skopeo transport reference, e.g. oci:DIR:TAG) to the registry as NAME:TAG. */
export function push(source: string, registry: TestRegistry, nameAndTag: string): void {
  const result = spawnSync('skopeo', ['copy', '--dest-tls-verify=false', source, `docker://${registry.host}/${nameAndTag}`], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`skopeo copy failed: ${result.stderr}`);
}

/** A registry of our own on loopback: `answer` decides every response (a hostile registry). */
export async function startFakeRegistry(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ host: string; close(): Promise<void> }> {
  const server: Server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return { host, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
