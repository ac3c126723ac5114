// A kept-alive connection the server closed between two requests: the next request goes on a new one.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelWire } from './model-wire.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  // The client keeps its last connection alive: it is ended here, or close would wait for it.
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const completion = JSON.stringify({
  id: 'c',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
});

/**
 * A raw HTTP server that answers the first request of each connection (keep-alive) and resets the
 * connection when a second request arrives on it, as a server does that closed an idle connection just
 * as the client reused it. `connections` counts the connections, `answered` the answers.
 */
async function closingServer(options: { resetFreshToo?: boolean } = {}) {
  const state = { connections: 0, answered: 0 };
  const server = createServer((socket: Socket) => {
    sockets.push(socket);
    state.connections += 1;
    let requests = 0;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.slice(end + 4 + length);
      requests += 1;
      if (requests > 1 || options.resetFreshToo) {
        socket.resetAndDestroy();
        return;
      }
      state.answered += 1;
      socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(completion)}\r\nConnection: keep-alive\r\n\r\n${completion}`,
      );
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { state, baseUrl: `http://127.0.0.1:${port}/v1` };
}

const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

describe('a kept-alive connection the server closed', () => {
  it('sends the request again on a new connection, even with no retries allowed', async () => {
    const server = await closingServer();
    const wire = createModelWire({ baseUrl: server.baseUrl, maxRetries: 0 });
    for (let call = 0; call < 3; call += 1) {
      const reply = await wire.send({ body });
      expect(reply.turn.content).toBe('hi');
    }
    // Each later call found its kept-alive connection reset, and went again on a new one.
    expect(server.state.answered).toBe(3);
    expect(server.state.connections).toBe(3);
  });

  it('leaves a fresh connection reset by the server to the retry policy', async () => {
    const server = await closingServer({ resetFreshToo: true });
    const wire = createModelWire({ baseUrl: server.baseUrl, maxRetries: 0 });
    await expect(wire.send({ body })).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(server.state.connections).toBe(1);
  });
});
