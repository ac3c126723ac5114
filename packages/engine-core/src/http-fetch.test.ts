import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from './http-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  port: number;
}

let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A real server answering with `answer`, recording what each request sent. */
async function serve(answer: (request: Seen, response: http.ServerResponse) => void): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks),
        port: request.socket.remotePort!,
      };
      seen.push(entry);
      answer(entry, response);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('httpFetch', () => {
  it('sends text and bytes exactly, with their length, over one kept-alive connection, and gives a standard Response', async () => {
    const { base, seen } = await serve((_request, response) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'r1' });
      response.end('{"ok":true,"text":"é🙂"}');
    });
    const bytes = Buffer.from('{"messages":["ünï 🙂"]}', 'utf8');
    const first = await httpFetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: bytes,
    });
    expect(first.status).toBe(201);
    expect(first.statusText).toBe('Made');
    expect(first.headers.get('x-request-id')).toBe('r1');
    expect(first.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await first.json()).toEqual({ ok: true, text: 'é🙂' });
    const second = await httpFetch(new URL(`${base}/again`), {
      method: 'POST',
      headers: new Headers({ 'x-one': '1' }),
      body: 'plain text é',
    });
    await second.text();
    expect(seen.map((request) => [request.method, request.url])).toEqual([
      ['POST', '/v1/chat/completions'],
      ['POST', '/again'],
    ]);
    expect(seen[0]!.body.equals(bytes)).toBe(true);
    expect(seen[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: 'Bearer k',
      'content-length': String(bytes.length),
    });
    expect(seen[1]!.body.toString('utf8')).toBe('plain text é');
    expect(seen[1]!.headers['x-one']).toBe('1');
    // The same client port both times: the connection was kept alive.
    expect(seen[1]!.port).toBe(seen[0]!.port);
  });

  it('gives a null body for 204, and follows a redirect as fetch does', async () => {
    const { base, seen } = await serve((request, response) => {
      if (request.url === '/empty') {
        response.writeHead(204).end();
      } else if (request.url === '/old') {
        response.writeHead(307, { location: '/new' }).end();
      } else {
        response.writeHead(200).end(`at ${request.url} with ${request.body.toString()}`);
      }
    });
    const empty = await httpFetch(`${base}/empty`, { method: 'POST', body: 'x' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const moved = await httpFetch(`${base}/old`, { method: 'POST', body: 'payload' });
    expect(moved.status).toBe(200);
    expect(await moved.text()).toBe('at /new with payload');
    expect(seen.map((request) => request.url)).toEqual(['/empty', '/old', '/new']);
  });

  it('rejects with the abort reason, before the request or while waiting for the answer', async () => {
    let received: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => (received = resolve));
    const { base } = await serve(() => {
      // Never answers; says the request is here, so the abort below falls while the answer is awaited.
      received();
    });
    const before = new AbortController();
    before.abort();
    await expect(httpFetch(`${base}/x`, { method: 'POST', body: 'x', signal: before.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    const during = new AbortController();
    const pending = httpFetch(`${base}/x`, { method: 'POST', body: 'x', signal: during.signal });
    await requestArrived;
    during.abort(new Error('stopped by the test'));
    await expect(pending).rejects.toThrow('stopped by the test');
  });

  it('rejects with the connection error when nothing listens', async () => {
    const { base } = await serve(() => undefined);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    await expect(httpFetch(`${base}/x`, { method: 'POST', body: 'x' })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
