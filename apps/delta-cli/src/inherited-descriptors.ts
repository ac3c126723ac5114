import { closeSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC, as /proc/<pid>/fdinfo/<fd> shows it in its octal `flags:`. */
const CLOSE_ON_EXEC = 0o2000000;

/**
 * Closes every descriptor above 2 that `delta` inherited open across exec (a CI runner, a supervisor or a
 * shell redirection leaves them: `delta run … 50>>file`): every process the engine starts would inherit
 * it in turn, the sandbox's bubblewrap and through it the tools, which could then write a file outside
 * the sandbox or read one it hides. Node's own descriptors are all close-on-exec, and so left alone, as
 * is a parent's IPC channel (NODE_CHANNEL_FD). Called first thing by the CLI entry, never by a library.
 */
export function closeInheritedDescriptors(environment: NodeJS.ProcessEnv = process.env): void {
  const channel = Number(environment.NODE_CHANNEL_FD);
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    // No /proc (not Linux): nothing to go by.
    return;
  }
  for (const name of fds) {
    const fd = Number(name);
    if (!(fd > 2) || fd === channel) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (Number.parseInt(flags, 8) & CLOSE_ON_EXEC) === 0) closeSync(fd);
    } catch {
      // Gone already (the directory listing's own descriptor).
    }
  }
}
