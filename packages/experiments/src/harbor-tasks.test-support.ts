import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A Harbor task directory's files, by path; `undefined` leaves a file out. */
export type HarborTaskFiles = Record<string, string | undefined>;

/** The files of a good task: its image prebuilt (`docker_image`), its verifier and its oracle. */
export function goodTaskFiles(id: string, extra: HarborTaskFiles = {}): HarborTaskFiles {
  return {
    'instruction.md': `Do ${id}.\n`,
    'task.toml': `version = "1.0"\n\n[metadata]\ndifficulty = "easy"\n\n[agent]\ntimeout_sec = 600.0\n\n[verifier]\ntimeout_sec = 120.0\n\n[environment]\ndocker_image = "registry.lab:5000/tb/${id}:1"\n`,
    'environment/Dockerfile': `FROM debian:bookworm\nRUN echo ${id}\n`,
    'tests/test.sh': '#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n',
    'solution/solve.sh': '#!/bin/bash\ntrue\n',
    ...extra,
  };
}

/** Writes a task directory `root/id` with `files` (those given as undefined are left out). */
export function writeHarborTask(root: string, id: string, files: HarborTaskFiles): string {
  const directory = join(root, id);
  mkdirSync(directory, { recursive: true });
  for (const [path, content] of Object.entries(files)) {
    if (content === undefined) continue;
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), content);
  }
  return directory;
}
