import { ConfigurationError } from '@delta/errors';

/** Where the queue lives: `redis://[user:password@]HOST:PORT/DB` (or `rediss://` for TLS). */
export interface RedisAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL as it may be printed: without its password. */
  shown: string;
}

/** A URL as it may be printed: a password between `//user:` and `@` becomes `***`, whether the URL parses or not. */
export function hidePassword(text: string): string {
  // Up to the last `@`: a password may hold an unencoded `@`, `/` or `#` that no URL parser would accept.
  return text.replace(/^([^:/]+:\/\/)(.*)@/s, (_whole, scheme: string, credentials: string) => {
    const colon = credentials.indexOf(':');
    return `${scheme}${colon === -1 ? credentials : `${credentials.slice(0, colon)}:***`}@`;
  });
}

/** `log` with every occurrence of the address's password replaced by `***`: whatever a server or a library says. */
export function withoutPassword(address: RedisAddress, log: (line: string) => void): (line: string) => void {
  const secrets = [address.password, address.password === undefined ? undefined : encodeURIComponent(address.password)].filter(
    (secret): secret is string => secret !== undefined && secret !== '',
  );
  if (secrets.length === 0) return log;
  return (line) => log(secrets.reduce((text, secret) => text.split(secret).join('***'), line));
}

function invalid(text: string, flag: string, problem: string): ConfigurationError {
  return new ConfigurationError(`${flag} ${JSON.stringify(hidePassword(text))} is not a Redis URL: ${problem}.`, {
    code: 'USAGE',
    field: flag,
    hint: `Give it as redis://HOST:PORT/DB, or redis://:PASSWORD@HOST:PORT/DB for a server with a password, for example ${flag} redis://127.0.0.1:6379/0.`,
  });
}

/** Parses `--queue`; anything but a plain redis:// or rediss:// URL is a usage error naming the flag. */
export function parseRedisAddress(text: string, flag = '--queue'): RedisAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(text, flag, 'it does not parse as a URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw invalid(text, flag, `the scheme is ${url.protocol} (redis: or rediss: expected)`);
  if (url.hostname === '') throw invalid(text, flag, 'it names no host');
  const port = url.port === '' ? 6379 : Number(url.port);
  const path = url.pathname.replace(/^\//, '');
  const db = path === '' ? 0 : Number(path);
  if (!Number.isInteger(db) || db < 0 || !/^\d*$/.test(path)) throw invalid(text, flag, `the database "${path}" is not a number`);
  if (url.search !== '' || url.hash !== '') throw invalid(text, flag, 'it has a query or a fragment, which is not read');
  const username = url.username === '' ? undefined : decodeURIComponent(url.username);
  const password = url.password === '' ? undefined : decodeURIComponent(url.password);
  const credentials = username !== undefined || password !== undefined ? `${username ?? ''}${password === undefined ? '' : ':***'}@` : '';
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    db,
    ...(username === undefined ? {} : { username }),
    ...(password === undefined ? {} : { password }),
    tls: url.protocol === 'rediss:',
    shown: `${url.protocol}//${credentials}${url.host}/${db}`,
  };
}
