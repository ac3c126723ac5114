import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { DELTA_BIN } from './test-support.js';

/**
 * The attack a hostile tool (or a stdio MCP server) makes on its sandbox, as a shell script run inside:
 * `sh attack.sh LABEL WORKSPACE OUTSIDE NODE SOCKET...`. It writes what it saw to WORKSPACE/observed-LABEL.txt,
 * one `name=value` line each: its capabilities, whether / and .delta/ could be remounted writable (and, if
 * / could, a file written OUTSIDE), whether a line could be appended to the run's journal, whether a user
 * namespace could be made, what each SOCKET answered, and what its own socket (as a session's) answered.
 */
export const ATTACK_SCRIPT = `label=$1; ws=$2; outside=$3; node=$4; shift 4
connect='const s = require("net").connect(process.argv[1]);
s.setTimeout(10000, () => { console.log("TIMEOUT"); process.exit(0) });
s.on("connect", () => s.write("PING\\r\\n"));
s.on("data", (d) => { console.log(String(d).trim().split("\\n")[0]); process.exit(0) });
s.on("error", (e) => { console.log(e.code); process.exit(0) })'
{
  echo "capeff=$(awk '/^CapEff/ {print $2}' /proc/self/status)"
  echo "nonewprivs=$(awk '/^NoNewPrivs/ {print $2}' /proc/self/status)"
  if mount -o remount,bind,rw / 2>/dev/null; then
    echo "remount-root=succeeded"; echo escaped > "$outside/escaped-$label.txt"
  else echo "remount-root=refused"; fi
  if mount -o remount,bind,rw "$ws/.delta" 2>/dev/null; then echo "remount-delta=succeeded"; else echo "remount-delta=refused"; fi
  for journal in "$ws"/.delta/*/journal.jsonl; do
    if { printf '%s\\n' '{"type":"FORGED_BY_A_TOOL"}' >> "$journal"; } 2>/dev/null; then echo "forge=appended"; else echo "forge=refused"; fi
  done
  if unshare -U true 2>/dev/null; then echo "userns=created"; else echo "userns=refused"; fi
  for socket in "$@"; do echo "socket $socket=$("$node" -e "$connect" "$socket")"; done
  own="$ws/own-$label.sock"
  "$node" -e 'require("net").createServer((s) => s.end("own\\n")).listen(process.argv[1])' "$own" & server=$!
  while [ ! -S "$own" ]; do sleep 0.01; done
  echo "own-socket=$("$node" -e "$connect" "$own")"
  kill $server; rm -f "$own"
} > "$ws/observed-$label.txt" 2>&1
`;

/** Reads an observed-LABEL.txt into its lines' names and values. */
export function parseObserved(text: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  for (const line of text.split('\n').filter(Boolean)) {
    const at = line.lastIndexOf('=');
    const name = line.slice(0, at);
    seen.set(name, [...(seen.get(name) ?? []), line.slice(at + 1)]);
  }
  return seen;
}

/** Who runs `delta`: the prefix before `node delta.js`, or why that identity cannot be had on this machine. */
export interface Identity {
  name: string;
  prefix: string[];
  unavailable?: string;
}

const NOBODY = ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--'];

/**
 * root (this process, when it is root) and nobody (through setpriv), each with why it cannot run here.
 * Not root, this process's own user stands in for nobody, and root cannot be tested.
 */
export function identities(): Identity[] {
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) {
    return [
      { name: 'root', prefix: [], unavailable: `this test process runs as uid ${uid}, not root, so root cannot be tested here` },
      { name: `uid ${uid} (unprivileged)`, prefix: [] },
    ];
  }
  const cli = spawnSync(NOBODY[0]!, [...NOBODY.slice(1), process.execPath, DELTA_BIN, '--version'], { encoding: 'utf8' });
  const bwrap = spawnSync(
    NOBODY[0]!,
    [...NOBODY.slice(1), 'bwrap', '--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', '--', 'true'],
    {
      encoding: 'utf8',
    },
  );
  let unavailable: string | undefined;
  if (cli.error || cli.status !== 0) unavailable = `user nobody cannot run ${DELTA_BIN} (${cli.error?.message ?? cli.stderr.trim()})`;
  else if (bwrap.error || bwrap.status !== 0)
    unavailable = `user nobody cannot run bubblewrap here (${bwrap.error?.message ?? bwrap.stderr.trim()})`;
  return [
    { name: 'root', prefix: [] },
    { name: 'nobody', prefix: NOBODY, ...(unavailable ? { unavailable } : {}) },
  ];
}

/** A unix socket server outside the sandbox, counting its connections. */
export interface SocketServer {
  path: string;
  connections(): number;
  close(): Promise<void>;
}

/** A small node server on the unix socket `path` (anyone may connect: mode 0777), answering `hello`. */
export async function startSocketServer(path: string, answer: string): Promise<SocketServer> {
  let connections = 0;
  const open = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.end(`${answer}\n`);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  chmodSync(path, 0o777);
  return {
    path,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

/** A real redis-server listening only on the unix socket `path` (mode 777), reporting its client connections. */
export async function startSocketRedis(path: string): Promise<SocketServer & { output(): string }> {
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', path, '--unixsocketperm', '777', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      if (/ready to accept connections/i.test(output)) resolve();
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', () => reject(new Error(`redis-server exited before it was ready:\n${output}`)));
  });
  const info = () => spawnSync('redis-cli', ['-s', path, 'info', 'stats'], { encoding: 'utf8' }).stdout;
  return {
    path,
    output: () => output,
    // Less the one this question opens.
    connections: () => Number(/total_connections_received:(\d+)/.exec(info())?.[1] ?? Number.NaN) - 1,
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
