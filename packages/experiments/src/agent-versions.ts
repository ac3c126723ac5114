import { createHash, randomUUID } from 'node:crypto';
import { existsSync, lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { diskWrite, makeDirectory, safeParseJson } from '@delta/errors';
import { type AgentFingerprint, readRunRecord, SMALL_RECORD_MAX_BYTES } from '@delta/journal';
import { z } from 'zod';
import { batchControlDirectory } from './batch-layout.js';

// A batch keeps a copy of each version of the agent it ran, named by the version's fingerprint, so that a
// replay or a fork of one of its runs uses the files that run used, however the agent was edited since.

/** As the fingerprint bounds the files it hashes. */
const AGENT_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** What `OUT/.batch/agents/<version>/version.json` records: the version, and where its agent directory is in the copy. */
const KeptVersion = z.looseObject({
  fingerprint: z.looseObject({ sha256: z.string(), files: z.array(z.looseObject({ path: z.string(), sha256: z.string() })) }),
  /** The agent directory the files were copied from. */
  agent_home: z.string(),
  /** The copy's agent directory, relative to the version's directory (deeper when an import lies outside the agent). */
  home: z.string(),
});

/** Where the batch keeps its agent versions: `OUT/.batch/agents/`. */
export function agentVersionsDirectory(out: string): string {
  return join(batchControlDirectory(out), 'agents');
}

/** The kept copy of one version: `OUT/.batch/agents/<first 16 hex digits of its fingerprint>/`. */
export function agentVersionDirectory(out: string, fingerprint: AgentFingerprint): string {
  return join(agentVersionsDirectory(out), fingerprint.sha256.slice(0, 16));
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** How many directories above the agent its files reach (`../shared/tools.yaml` reaches 1). */
function depthAbove(files: AgentFingerprint['files']): number {
  let depth = 0;
  for (const file of files) {
    const parts = file.path.split(/[\\/]/);
    let up = 0;
    while (parts[up] === '..') up += 1;
    depth = Math.max(depth, up);
  }
  return depth;
}

/**
 * Keeps a copy of the agent's files as `fingerprint` lists them (what defines that version) under
 * `OUT/.batch/agents/<version>/`, once: a version kept already is left as it is. A file whose content is no
 * longer the fingerprint's (edited since) makes the copy wait for the next command, which records its own
 * version. Each file is read as hostile input (a regular file, bounded); nothing else of the agent
 * directory is copied (its `.env` and workspaces stay where they are).
 */
export function keepAgentVersion(out: string, agentHome: string, fingerprint: AgentFingerprint): void {
  const directory = agentVersionDirectory(out, fingerprint);
  if (existsSync(directory)) return;
  const home = resolve(agentHome);
  // An import above the agent (inside its git repository) keeps its place relative to the agent.
  const depth = depthAbove(fingerprint.files);
  const parts = home.split(sep).filter((part) => part !== '');
  const copyHome = (depth === 0 ? [parts.at(-1) ?? 'agent'] : parts.slice(-depth)).join('/');
  const temporary = join(agentVersionsDirectory(out), `.${randomUUID()}.tmp`);
  makeDirectory(temporary);
  try {
    for (const file of fingerprint.files) {
      let bytes: Buffer | undefined;
      try {
        bytes = readRunRecord(resolve(home, file.path), AGENT_FILE_MAX_BYTES);
      } catch {
        bytes = undefined;
      }
      if (bytes === undefined || sha256(bytes) !== file.sha256) return;
      const target = resolve(temporary, copyHome, file.path);
      if (!target.startsWith(`${temporary}${sep}`)) return;
      makeDirectory(dirname(target));
      diskWrite(target, () => writeFileSync(target, bytes, { flag: 'wx' }));
    }
    // The copy of an agent whose imports reach above it is a repository of its own, as the original was.
    if (depth > 0) diskWrite(join(temporary, '.git'), () => writeFileSync(join(temporary, '.git'), ''));
    const record = { fingerprint, agent_home: home, home: copyHome };
    diskWrite(join(temporary, 'version.json'), () =>
      writeFileSync(join(temporary, 'version.json'), `${JSON.stringify(record, null, 2)}\n`),
    );
    try {
      renameSync(temporary, directory);
    } catch (error) {
      // Another process kept the same version at the same time: its copy is this one.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
  } finally {
    rmSync(temporary, { recursive: true, force: true });
  }
}

/**
 * The agent directory of the kept copy of `fingerprint` in the batch in OUT, or undefined when the batch
 * kept none (a batch made before versions were kept, or a version whose files changed before the copy).
 */
export function keptAgentHome(out: string, fingerprint: AgentFingerprint): string | undefined {
  const directory = agentVersionDirectory(out, fingerprint);
  const file = join(directory, 'version.json');
  let bytes: Buffer | undefined;
  try {
    bytes = readRunRecord(file, SMALL_RECORD_MAX_BYTES);
  } catch {
    return undefined;
  }
  if (bytes === undefined) return undefined;
  const parsed = safeParseJson(bytes.toString('utf8'), file, { schema: KeptVersion });
  if (!parsed.success || parsed.data.fingerprint.sha256 !== fingerprint.sha256) return undefined;
  const home = resolve(directory, parsed.data.home);
  return home.startsWith(`${directory}${sep}`) && lstatSync(home, { throwIfNoEntry: false })?.isDirectory() ? home : undefined;
}
