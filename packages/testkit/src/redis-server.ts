import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { SystemError } from '@delta/errors';

/** A real redis-server of its own, on a loopback port, keeping nothing on disk. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>/0`, or `redis://:<password>@127.0.0.1:<port>/0` with a password. */
  url: string;
  port: number;
  /** Everything it printed, for a failing test's message. */
  output(): string;
  /** Stops it (SIGKILL) and waits until it has exited. */
  stop(): Promise<void>;
}

/**
 * Why the Redis tests cannot run here, or undefined when they can: CI sets DELTA_TEST_REDIS_UNAVAILABLE
 * when `apt-get install redis-server` failed; otherwise the binary must be on PATH. A test skips loudly
 * with this reason.
 */
export function redisUnavailable(): string | undefined {
  if (process.env.DELTA_TEST_REDIS_UNAVAILABLE) return process.env.DELTA_TEST_REDIS_UNAVAILABLE;
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return 'redis-server is not installed (apt-get install redis-server)';
  return undefined;
}

/** A loopback port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface TestRedisOptions {
  /** `requirepass`: clients must authenticate with it (the URL carries it). */
  password?: string;
}

/**
 * Starts `redis-server --port P --bind 127.0.0.1 --save '' --appendonly no` (plus `--requirepass` when
 * given a password) and resolves once it says it accepts connections. Tries another port if the chosen
 * one was taken in between.
 */
export async function startTestRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const auth = options.password === undefined ? [] : ['--requirepass', options.password];
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...auth], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const ready = await new Promise<boolean>((resolve) => {
      const look = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve(true);
      };
      child.stdout!.on('data', look);
      child.stderr!.on('data', look);
      child.once('exit', () => resolve(false));
      child.once('error', (error) => {
        output += String(error);
        resolve(false);
      });
    });
    if (ready) return handle(child, port, options.password, () => output);
    if (attempt >= 3) throw new SystemError(`redis-server did not start on port ${port}:\n${output}`, { code: 'START_FAILED' });
  }
}

function handle(child: ChildProcess, port: number, password: string | undefined, output: () => string): TestRedis {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    url: `redis://${password === undefined ? '' : `:${encodeURIComponent(password)}@`}127.0.0.1:${port}/0`,
    port,
    output,
    stop: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
