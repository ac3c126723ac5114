import { join } from 'node:path';
import { createTempDir } from '@delta/testkit';
import { run, sessionsBin, timeInterleaved } from './processes.mjs';
import { median } from './stats.mjs';

/** Median wall time of `delta-sessions exec <id> true` in a bash session against `bash -c true`. */
export async function benchSessionsExec(rounds) {
  const sessionsDir = join(await createTempDir('delta-bench-sessions-'), 'sessions');
  const started = await run(process.execPath, [sessionsBin, 'start', '--sessions-dir', sessionsDir]);
  if (started.code !== 0) throw new Error(`delta-sessions start exited ${started.code}: ${started.stdout}${started.stderr}`);
  const id = JSON.parse(started.stdout).session_id;
  try {
    const [bash, exec] = await timeInterleaved(
      [
        { file: 'bash', args: ['-c', 'true'] },
        { file: process.execPath, args: [sessionsBin, 'exec', '--sessions-dir', sessionsDir, id, 'true'] },
      ],
      rounds,
    );
    return { bash: median(bash), exec: median(exec) };
  } finally {
    await run(process.execPath, [sessionsBin, 'end', '--sessions-dir', sessionsDir, id]);
  }
}
