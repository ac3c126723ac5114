import { ConfigurationError, SystemError } from '@delta/errors';
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
  const reason = (cause instanceof Error ? cause.message : String(cause)).replace(/\.+$/, '');
  return new SystemError(`Cannot reach Redis at ${address.shown}: ${reason}.`, {
    code: 'QUEUE_UNREACHABLE',
    hint: `Start a server there (for example redis-server --port ${address.port}, or your Redis service), or point --queue at one that runs.`,
  });
}

function noSuchDatabase(address: RedisAddress): ConfigurationError {
  return new ConfigurationError(`Redis at ${address.shown} has no database ${address.db}.`, {
    code: 'USAGE',
    field: '--queue',
    hint: 'A Redis server has databases 0 to its `databases` setting less one (16 by default): pick one of those, e.g. redis://HOST:PORT/0.',
  });
}

function refusedPassword(address: RedisAddress, cause: unknown): ConfigurationError {
  const given = address.password === undefined ? 'no password was given' : 'the password was refused';
  return new ConfigurationError(
    `Redis at ${address.shown} requires authentication: ${given} (${(cause as Error).message.replace(/\.+$/, '')}).`,
    {
      code: 'USAGE',
      field: '--queue',
      hint: 'Give the password of its requirepass in the URL: redis://:PASSWORD@HOST:PORT/DB (or redis://USER:PASSWORD@... for an ACL user).',
    },
  );
}

const AUTHENTICATION = /^(NOAUTH|WRONGPASS)\b|invalid password|AUTH <password> called without any password/i;

/**
 * Says a Redis outage once, not once per reconnection attempt or per queue, and says when it is over.
 * Shared by the connection and the BullMQ workers built on it (each reports the same outage).
 */
export interface OutageReporter {
  error(message: string): void;
  ready(): void;
}

export function outageReporter(address: RedisAddress, log: (line: string) => void): OutageReporter {
  let reported = '';
  return {
    error(message) {
      if (message !== reported) log(`Redis at ${address.shown}: ${message} (reconnecting)`);
      reported = message;
    },
    ready() {
      if (reported !== '') log(`Redis at ${address.shown}: connected again`);
      reported = '';
    },
  };
}

/**
 * A connection to the queue's Redis, checked before anything uses it: a server that cannot be reached, or
 * that has no such database, fails here, at once and by its URL, instead of in a retry loop (ioredis would
 * otherwise go on in database 0 when the SELECT fails). Once connected, the client reconnects on its own
 * after an outage; `outages` hears about each one and its end.
 */
export async function connectRedis(address: RedisAddress, outages?: OutageReporter): Promise<Redis> {
  const probe = new Redis({ ...options(address), db: 0, lazyConnect: true, retryStrategy: () => null });
  // The first error says why (ECONNREFUSED, a name that does not resolve); connect() only says "closed".
  let cause: unknown;
  probe.on('error', (error) => {
    cause ??= error;
  });
  try {
    try {
      await probe.connect();
      await probe.ping();
    } catch (error) {
      const reason = cause ?? error;
      if (reason instanceof Error && AUTHENTICATION.test(reason.message)) throw refusedPassword(address, reason);
      if (error instanceof Error && AUTHENTICATION.test(error.message)) throw refusedPassword(address, error);
      throw unreachable(address, reason);
    }
    if (address.db !== 0) {
      try {
        await probe.select(address.db);
      } catch (error) {
        if (error instanceof Error && /DB index is out of range/i.test(error.message)) throw noSuchDatabase(address);
        throw unreachable(address, error);
      }
    }
  } finally {
    probe.disconnect();
  }
  const client = new Redis(options(address));
  client.on('error', (error: Error) => outages?.error(error.message));
  client.on('ready', () => outages?.ready());
  return client;
}
