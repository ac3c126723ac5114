// @ts-check
// One side of a race for a run's lock, as a real process (see run-lock-stress.test.ts):
// `node run-lock-contender.test-fixture.mjs <bundled run-lock.js>`, then on stdin, one per line:
//   acquire <lock file> <marker file> <spin µs>   -> held | double | lost | refused <pid> | error <message>
//   release                                       -> released
// While it holds the lock it creates <marker file> exclusively: finding it there already means another
// process believes it holds the same lock (a double holder). It also checks the lock file names it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const { acquireRunLock } = await import(/** @type {string} */ (process.argv[2]));

/** @type {{ release(): void } | undefined} */
let lock;
/** @type {string | undefined} */
let marker;

/** @param {number} microseconds */
function spin(microseconds) {
  const until = performance.now() + microseconds / 1000;
  while (performance.now() < until);
}

/** @param {string} lockFile @param {string} markerFile */
function acquire(lockFile, markerFile) {
  try {
    lock = acquireRunLock(lockFile, 'stress');
  } catch (error) {
    const match = /pid (\d+)/.exec(String(/** @type {Error} */ (error).message));
    return match ? `refused ${match[1]}` : `error ${String(/** @type {Error} */ (error).message).replace(/\n/g, ' ')}`;
  }
  try {
    writeFileSync(markerFile, String(process.pid), { flag: 'wx' });
    marker = markerFile;
  } catch {
    return 'double';
  }
  // The lock file must name this process, whole: empty, cut short or naming another is a lost lock.
  try {
    return JSON.parse(readFileSync(lockFile, 'utf8')).pid === process.pid ? 'held' : 'lost';
  } catch {
    return 'lost';
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, lockFile = '', markerFile = '', spinMicros = '0'] = line.split(' ');
  if (command === 'acquire') {
    spin(Number(spinMicros));
    process.stdout.write(`${acquire(lockFile, markerFile)}\n`);
  } else if (command === 'release') {
    if (marker) rmSync(marker, { force: true });
    lock?.release();
    lock = undefined;
    marker = undefined;
    process.stdout.write('released\n');
  }
}
