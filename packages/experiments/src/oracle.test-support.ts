// A directory of Harbor tasks over one image the test builds (umoci + busybox, no daemon), for the oracle's
// tests: two tasks whose solution works, one whose solve.sh is broken, and one with no solution.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildImage } from '../../images/src/image.test-support.js';
import { writeHarborTask } from './harbor-tasks.test-support.js';

/** The verifier of the tasks: /app/state must say "fixed" (a change outside the workspace, in the run's layer). */
export const FIX_STATE_TEST = `if grep -q fixed /app/state; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n`;

/**
 * Builds the image (a busybox root whose `bash` is its sh, /app/state "broken", workdir /workspace) and the
 * tasks `fix-state`, `write-file`, `broken` (its solve.sh fails) and `no-solution`, mapped to the image by an
 * image map. Returns the tasks' directory and the map.
 */
export function oracleFixture(base: string): { tasks: string; imageMap: string } {
  buildImage(
    join(base, 'image'),
    'v1',
    (rootfs) => {
      // Harbor runs `bash solve.sh` and `bash /tests/test.sh`: busybox has no bash applet, its sh stands in.
      writeFileSync(join(rootfs, 'bin', 'bash'), '#!/bin/sh\nexec /bin/sh "$@"\n');
      chmodSync(join(rootfs, 'bin', 'bash'), 0o755);
      mkdirSync(join(rootfs, 'app'));
      writeFileSync(join(rootfs, 'app', 'state'), 'broken\n');
      mkdirSync(join(rootfs, 'workspace'));
    },
    { workdir: '/workspace' },
  );
  const tasks = join(base, 'tasks');
  const toml = '[agent]\ntimeout_sec = 60.0\n[verifier]\ntimeout_sec = 30.0\n';
  writeHarborTask(tasks, 'fix-state', {
    'instruction.md': 'Make /app/state say fixed.\n',
    'task.toml': toml,
    'tests/test.sh': FIX_STATE_TEST,
    'solution/solve.sh': 'echo "solving in $(pwd)"\necho fixed > /app/state\n',
  });
  writeHarborTask(tasks, 'write-file', {
    'instruction.md': 'Write hello.txt saying hello.\n',
    'task.toml': toml,
    'tests/test.sh': 'if grep -q hello /workspace/hello.txt; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n',
    // A Harbor solution directory may hold more than solve.sh.
    'solution/solve.sh': 'cat "$(dirname "$0")/answer.txt" > hello.txt\n',
    'solution/answer.txt': 'hello\n',
  });
  writeHarborTask(tasks, 'broken', {
    'instruction.md': 'Make /app/state say fixed.\n',
    'task.toml': toml,
    'tests/test.sh': FIX_STATE_TEST,
    'solution/solve.sh': 'echo "the solution cannot find its tool" >&2\nexit 3\n',
  });
  writeHarborTask(tasks, 'no-solution', {
    'instruction.md': 'Make /app/state say fixed.\n',
    'task.toml': toml,
    'tests/test.sh': FIX_STATE_TEST,
  });
  const imageMap = join(base, 'images.yaml');
  writeFileSync(imageMap, ['fix-state', 'write-file', 'broken', 'no-solution'].map((id) => `${id}: image:v1\n`).join(''));
  return { tasks, imageMap };
}
