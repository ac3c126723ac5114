import type { AgentFingerprint } from '@delta/journal';

/** How two versions of an agent differ, file by file (paths relative to the agent directory). */
export interface FingerprintChanges {
  same: boolean;
  /** In both, with other contents. */
  changed: string[];
  /** Only in the second. */
  added: string[];
  /** Only in the first. */
  removed: string[];
}

/** Compares an agent's version `before` with `after`. Pure. */
export function compareFingerprints(before: AgentFingerprint, after: AgentFingerprint): FingerprintChanges {
  const old = new Map(before.files.map((file) => [file.path, file.sha256]));
  const now = new Map(after.files.map((file) => [file.path, file.sha256]));
  const changed = [...now].filter(([path, hash]) => old.has(path) && old.get(path) !== hash).map(([path]) => path);
  const added = [...now.keys()].filter((path) => !old.has(path));
  const removed = [...old.keys()].filter((path) => !now.has(path));
  return { same: before.sha256 === after.sha256, changed, added, removed };
}

/** The changes in words: `system_prompt.md changed, tools/new.sh added`; "the same files" when there are none. */
export function describeFingerprintChanges(changes: FingerprintChanges): string {
  const parts = [
    ...changes.changed.map((path) => `${path} changed`),
    ...changes.added.map((path) => `${path} added`),
    ...changes.removed.map((path) => `${path} removed`),
  ];
  return parts.length > 0 ? parts.join(', ') : 'the same files';
}

/** A fingerprint as people read it: its first 12 hex digits and how many files it covers. */
export function shortFingerprint(fingerprint: AgentFingerprint): string {
  const count = fingerprint.files.length;
  return `${fingerprint.sha256.slice(0, 12)} (${count} file${count === 1 ? '' : 's'})`;
}
