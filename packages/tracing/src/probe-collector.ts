import { connect } from 'node:net';

/**
 * Whether anything listens at the collector's address: a TCP connection, tried once in the background as a
 * live export starts. Resolves with the reason when the connection is refused or the host cannot be found
 * (nothing will take the spans), and undefined when it connects or does not answer within `waitMs` (a slow
 * collector is given its chance). Never keeps the process alive.
 */
export function probeCollector(url: string, waitMs = 1000): Promise<string | undefined> {
  const target = new URL(url);
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.unref();
    const done = (reason: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => done(undefined), waitMs).unref();
    socket.once('connect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => done(`connect ${error.code ?? error.message} ${host}:${port}`));
  });
}
