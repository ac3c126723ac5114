import { imageError } from './image-error.js';
import { isLoopbackHost } from './image-reference.js';

/** How to reach a registry: credentials, and whether plain HTTP may be used for a host that is not this machine. */
export interface RegistryOptions {
  /** For a registry that asks (Basic, or to get a Bearer token): never read from the environment here. */
  credentials?: { username: string; password: string };
  /** Plain HTTP for any host (default: only for loopback hosts, HTTPS for every other). */
  plainHttp?: boolean;
  signal?: AbortSignal;
}

/** A registry's repository, spoken to over the OCI distribution API, with anonymous or token auth. */
export class RegistryClient {
  private token: string | undefined;
  readonly base: string;

  constructor(
    readonly host: string,
    readonly repository: string,
    private readonly options: RegistryOptions = {},
  ) {
    const scheme = options.plainHttp || isLoopbackHost(host) ? 'http' : 'https';
    this.base = `${scheme}://${host}/v2/${repository}`;
  }

  private authorization(): Record<string, string> {
    if (this.token !== undefined) return { authorization: `Bearer ${this.token}` };
    const credentials = this.options.credentials;
    if (credentials) return { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` };
    return {};
  }

  /** GETs `path` of the repository (`manifests/<ref>`, `blobs/<digest>`); a 401 with a Bearer challenge gets a token first. */
  async get(path: string, accept?: string): Promise<Response> {
    const url = `${this.base}/${path}`;
    const send = () =>
      fetch(url, {
        headers: { ...(accept ? { accept } : {}), ...this.authorization() },
        redirect: 'follow',
        ...(this.options.signal ? { signal: this.options.signal } : {}),
      }).catch((error: Error) => {
        throw imageError(
          'IMAGE_UNAVAILABLE',
          `The registry at ${this.host} cannot be reached for ${url}: ${error.cause instanceof Error ? error.cause.message : error.message}`,
        );
      });
    let response = await send();
    if (response.status === 401 && this.token === undefined) {
      const challenge = response.headers.get('www-authenticate') ?? '';
      await response.body?.cancel();
      if (/^Bearer /i.test(challenge)) {
        this.token = await this.fetchToken(challenge);
        response = await send();
      }
    }
    if (response.status === 404) {
      await response.body?.cancel();
      throw imageError(
        'IMAGE_NOT_FOUND',
        `The registry at ${this.host} has no ${this.repository} ${path.replace(/^manifests\//, '')} (${url})`,
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw imageError('IMAGE_UNAVAILABLE', `The registry at ${this.host} answered ${response.status} ${response.statusText} for ${url}`);
    }
    return response;
  }

  /** A Bearer token for pulling, from the realm the registry named (with the credentials, if any). */
  private async fetchToken(challenge: string): Promise<string> {
    const fields = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1]!.toLowerCase(), match[2]!]));
    if (!fields.realm) throw imageError('IMAGE_UNAVAILABLE', `The registry at ${this.host} asks for a token but names no realm`);
    const url = new URL(fields.realm);
    if (fields.service) url.searchParams.set('service', fields.service);
    url.searchParams.set('scope', fields.scope ?? `repository:${this.repository}:pull`);
    const credentials = this.options.credentials;
    const response = await fetch(url, {
      headers: credentials
        ? { authorization: `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}` }
        : {},
      ...(this.options.signal ? { signal: this.options.signal } : {}),
    }).catch((error: Error) => {
      throw imageError('IMAGE_UNAVAILABLE', `The token service ${url.origin} of ${this.host} cannot be reached: ${error.message}`);
    });
    if (!response.ok)
      throw imageError(
        'IMAGE_UNAVAILABLE',
        `The token service ${url.origin} of ${this.host} answered ${response.status}: give credentials that may pull ${this.repository}`,
      );
    const body = (await response.json().catch(() => ({}))) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) throw imageError('IMAGE_UNAVAILABLE', `The token service ${url.origin} of ${this.host} gave no token`);
    return token;
  }
}

/** The body of `response`, at most `maxBytes` (more is refused unread). */
export async function boundedBody(response: Response, maxBytes: number, what: string): Promise<Buffer> {
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  if (length > maxBytes) {
    await response.body?.cancel();
    throw imageError('IMAGE_INVALID', `${what} is larger than ${maxBytes} bytes`);
  }
  const parts: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) throw imageError('IMAGE_INVALID', `${what} is larger than ${maxBytes} bytes`);
    parts.push(Buffer.from(chunk));
  }
  return Buffer.concat(parts, total);
}
