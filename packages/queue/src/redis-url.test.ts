import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, startTestRedis } from '@delta/testkit';
import { connectRedis, parseRedisAddress, withoutPassword } from './index.js';
import { hidePassword } from './redis-address.js';
import { outageReporter } from './redis-connection.js';
import { redis, startRedis, stopRedis, unavailable } from './queue.test-support.js';

beforeAll(startRedis);
afterAll(stopRedis);
afterEach(() => cleanupTempDirs());

describe('the Redis URL', () => {
  it('parses redis://HOST:PORT/DB and never shows a password', () => {
    expect(parseRedisAddress('redis://u:secret@10.0.0.5:6380/2')).toMatchObject({
      host: '10.0.0.5',
      port: 6380,
      db: 2,
      username: 'u',
      password: 'secret',
      tls: false,
      shown: 'redis://u:***@10.0.0.5:6380/2',
    });
    expect(parseRedisAddress('redis://localhost').shown).toBe('redis://localhost/0');
    for (const [text, problem] of [
      ['localhost:6379', 'the scheme is localhost:'],
      ['http://h:1/0', 'the scheme is http:'],
      ['redis://h:1/x', 'the database "x" is not a number'],
      ['not a url', 'it does not parse as a URL'],
    ] as const) {
      expect(() => parseRedisAddress(text)).toThrow(
        expect.objectContaining({
          code: 'USAGE',
          message: expect.stringContaining(problem),
          hint: expect.stringContaining('redis://HOST:PORT/DB'),
        }),
      );
    }
  });

  it.skipIf(unavailable)('names the URL and how to start a server when nothing answers there', async () => {
    const address = parseRedisAddress(`redis://127.0.0.1:${redis.port + 1 === 65536 ? 1 : redis.port + 1}/0`);
    const error = await connectRedis(address).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'QUEUE_UNREACHABLE',
      message: expect.stringContaining(`Cannot reach Redis at ${address.shown}`),
      hint: expect.stringContaining(`redis-server --port ${address.port}`),
    });
    // The real cause, not ioredis's "Connection is closed.", and one full stop.
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).not.toContain('..');
  });

  it.skipIf(unavailable)('refuses a database the server does not have, instead of going on in database 0', async () => {
    const address = parseRedisAddress(`redis://127.0.0.1:${redis.port}/99`);
    const error = await connectRedis(address).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'USAGE',
      message: `Redis at ${address.shown} has no database 99.`,
      hint: expect.stringContaining('16 by default'),
    });
    const fine = await connectRedis(parseRedisAddress(`redis://127.0.0.1:${redis.port}/15`));
    fine.disconnect();
  });

  it('never shows a password: not in a URL that does not parse, not in a line a server or a library says', () => {
    for (const text of ['redis://:pa@ss@10.0.0.5:6379/x', 'redis://u:pa/ss@h/0', 'redis://:pa@ss@h:99999/0']) {
      const error = (() => {
        try {
          parseRedisAddress(text);
        } catch (caught) {
          return caught as Error;
        }
        return undefined;
      })();
      expect(error, text).toBeDefined();
      expect(error!.message, text).not.toContain('pa@ss');
      expect(error!.message, text).not.toContain('pa/ss');
      expect(error!.message, text).toContain(':***@');
    }
    expect(hidePassword('redis://user:secret@h:1/0')).toBe('redis://user:***@h:1/0');
    expect(hidePassword('redis://h:1/0')).toBe('redis://h:1/0');
    const lines: string[] = [];
    const log = withoutPassword(parseRedisAddress('redis://:s%40cret@h:1/0'), (line) => lines.push(line));
    log('AUTH s@cret failed; the URL had s%40cret');
    expect(lines).toEqual(['AUTH *** failed; the URL had ***']);
  });

  it.skipIf(unavailable)(
    'a server with a password: a URL without it, or with a wrong one, is refused by name and the password is not shown',
    async () => {
      const guarded = await startTestRedis({ password: 'right-one' });
      try {
        const url = new URL(guarded.url);
        const without = await connectRedis(parseRedisAddress(`redis://127.0.0.1:${guarded.port}/0`)).catch((caught: unknown) => caught);
        expect(without).toMatchObject({
          code: 'USAGE',
          message: expect.stringContaining('requires authentication: no password was given'),
        });
        const wrong = await connectRedis(parseRedisAddress(`redis://:wrong-one@127.0.0.1:${guarded.port}/0`)).catch(
          (caught: unknown) => caught,
        );
        expect(wrong).toMatchObject({ code: 'USAGE', message: expect.stringContaining('the password was refused') });
        expect((wrong as Error).message).not.toContain('wrong-one');
        expect((wrong as { hint: string }).hint).toContain('redis://:PASSWORD@HOST:PORT/DB');
        const right = await connectRedis(parseRedisAddress(guarded.url));
        expect(await right.ping()).toBe('PONG');
        right.disconnect();
        expect(url.password).toBe('right-one');
      } finally {
        await guarded.stop();
      }
    },
  );

  it('says an outage once, however many attempts and queues report it, and says when it is over', () => {
    const lines: string[] = [];
    const outages = outageReporter(parseRedisAddress('redis://10.0.0.5:6379/1'), (line) => lines.push(line));
    outages.ready();
    for (let attempt = 0; attempt < 5; attempt += 1) outages.error('connect ECONNREFUSED 10.0.0.5:6379');
    outages.ready();
    outages.ready();
    expect(lines).toEqual([
      'Redis at redis://10.0.0.5:6379/1: connect ECONNREFUSED 10.0.0.5:6379 (reconnecting)',
      'Redis at redis://10.0.0.5:6379/1: connected again',
    ]);
  });
});
