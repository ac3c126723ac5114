import { SystemError } from '@delta/errors';
import { Redis } from 'ioredis';
import type { RedisAddress } from './redis-address.js';

function options(address: RedisAddress) {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username === undefined ? {} : { username: address.username }),
    ...(address.password === undefined ? {} : { password: address.password }),
    ...(address.tls ? { tls: {} } : {}),
    connectTimeout: 5_000,
    // BullMQ's workers block on Redis commands; they must wait through a reconnection, not fail.
    maxRetriesPerRequest: null,
  };
}

function unreachable(address: RedisAddress, cause: unknown): SystemError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SystemError(`Cannot reach Redis at ${address.shown}: ${reason}.`, {
    code: 'QUEUE_UNREACHABLE',
    hint: `Start a server there (for example redis-server --port ${address.port}, or your Redis service), or point --queue at one that runs.`,
  });
}

/**
 * A connection to the queue's Redis, checked before anything uses it: a server that cannot be reached
 * fails here, at once and by its URL, instead of in a retry loop. Once connected, the client reconnects
 * on its own after an outage; `onError` hears about each one (ioredis would otherwise print them).
 */
export async function connectRedis(address: RedisAddress, onError: (message: string) => void = () => {}): Promise<Redis> {
  const probe = new Redis({ ...options(address), lazyConnect: true, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping();
  } catch (error) {
    throw unreachable(address, error);
  } finally {
    probe.disconnect();
  }
  const client = new Redis(options(address));
  let reported = '';
  client.on('error', (error: Error) => {
    // One line per kind of outage, not one per reconnection attempt.
    if (error.message !== reported) onError(`Redis at ${address.shown}: ${error.message} (reconnecting)`);
    reported = error.message;
  });
  client.on('ready', () => {
    reported = '';
  });
  return client;
}
