import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { BUBBLEWRAP_INSTALL } from './sandbox-policy.js';

export type BubblewrapProbe = { ok: true; path: string } | { ok: false; problem: string };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `bwrap` on PATH, or the path in `override` (DELTA_BUBBLEWRAP). */
function findBubblewrap(override: string | undefined, path: string | undefined): string | undefined {
  if (override !== undefined && override !== '') return isAbsolute(override) && executable(override) ? override : undefined;
  for (const directory of (path ?? '').split(delimiter)) {
    if (directory !== '' && executable(join(directory, 'bwrap'))) return join(directory, 'bwrap');
  }
  return undefined;
}

const probed = new Map<string, BubblewrapProbe>();

/**
 * Whether bubblewrap can sandbox tools here: it is installed, and it can create the user and PID
 * namespaces a run needs (a kernel or container that forbids user namespaces cannot). Runs `bwrap` once
 * per process and remembers the answer. The problem, when there is one, names the fix.
 */
export function probeBubblewrap(
  environment: { PATH?: string | undefined; DELTA_BUBBLEWRAP?: string | undefined } = process.env,
): BubblewrapProbe {
  const key = `${environment.DELTA_BUBBLEWRAP ?? ''}\0${environment.PATH ?? ''}`;
  const known = probed.get(key);
  if (known) return known;
  const path = findBubblewrap(environment.DELTA_BUBBLEWRAP, environment.PATH);
  let answer: BubblewrapProbe;
  if (path === undefined) {
    answer = {
      ok: false,
      problem:
        environment.DELTA_BUBBLEWRAP === undefined || environment.DELTA_BUBBLEWRAP === ''
          ? `bubblewrap (bwrap) is not installed: install it with \`${BUBBLEWRAP_INSTALL}\``
          : `DELTA_BUBBLEWRAP=${environment.DELTA_BUBBLEWRAP} is not an executable file: install bubblewrap with \`${BUBBLEWRAP_INSTALL}\` or fix the path`,
    };
  } else {
    const tried = spawnSync(
      path,
      // With the options every sandbox uses to hold for root too (bubblewrap 0.8.0 or later).
      [
        '--unshare-user',
        '--unshare-pid',
        '--cap-drop',
        'ALL',
        '--disable-userns',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--',
        'true',
      ],
      {
        env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
        encoding: 'utf8',
        timeout: 10_000,
      },
    );
    const said = (tried.stderr || tried.error?.message || `exit ${tried.status}`).trim();
    answer =
      tried.status === 0
        ? { ok: true, path }
        : {
            ok: false,
            problem: /unknown option/i.test(said)
              ? `bubblewrap (${path}) is too old: ${said} (the sandbox needs bubblewrap 0.8.0 or later, for --disable-userns)`
              : `bubblewrap (${path}) cannot create a sandbox here: ${said} (user namespaces may be disabled: see docs/security.md)`,
          };
  }
  probed.set(key, answer);
  return answer;
}
