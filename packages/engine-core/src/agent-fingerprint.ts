import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { AgentFingerprint } from '@delta/journal';
import { readUntrustedFile } from '@delta/untrusted-file';
import { compareFingerprints, describeFingerprintChanges } from './fingerprint-changes.js';
import type { LoadedAgent } from './load-agent.js';
import type { RunContext } from './run-context.js';

/** A file past this size is not part of the fingerprint (an agent's own files are far smaller). */
export const FINGERPRINT_FILE_MAX_BYTES = 64 * 1024 * 1024;

function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function isInside(path: string, directory: string): boolean {
  const rest = relative(directory, path);
  return rest !== '' && !rest.startsWith('..') && !isAbsolute(rest);
}

/**
 * A shell tool's script reaches `${AGENT_HOME}` as a positional parameter (`"$1"/tools/x.sh`): put the
 * variable back so the path can be read. Elements after `--` are the script's parameters, in order.
 */
function shellScriptWithVariables(command: readonly string[]): string {
  const script = command[2] ?? '';
  const variables = command.slice(4);
  return script.replace(/\$\{?(\d+)\}?/g, (reference, digits: string) => variables[Number(digits) - 1] ?? reference);
}

/** Every word of a command element that could be a path: the element itself, and its words and `--x=` values. */
function candidateWords(element: string): string[] {
  const unquoted = element.replace(/["']/g, '');
  const words = unquoted.split(/[\s;|&<>()`=]+/).filter((word) => word !== '' && !word.startsWith('-'));
  return [element, unquoted, ...words];
}

/** The absolute path a word names inside the agent directory, or undefined (a workspace path, a parameter, outside). */
function pathInAgent(word: string, home: string): string | undefined {
  if (word.includes('${CWD}')) return undefined;
  const substituted = word.replaceAll('${AGENT_HOME}', home);
  if (substituted.includes('${') || substituted.includes('\0')) return undefined;
  const path = resolve(home, substituted);
  return isInside(path, home) ? path : undefined;
}

/** The command lines of the agent's tools, MCP servers, hooks and context generators, and its context file paths. */
function namedStrings(agent: LoadedAgent): string[] {
  const strings: string[] = [];
  for (const tool of agent.tools) strings.push(...(tool.mode === 'shell' ? [shellScriptWithVariables(tool.command)] : tool.command));
  for (const server of agent.mcpServers) {
    if (server.config.command !== undefined) strings.push(server.config.command);
    strings.push(...(server.config.args ?? []));
  }
  for (const hook of Object.values(agent.hooks)) if (hook) strings.push(...hook.command);
  for (const source of agent.context.manifest.sources) {
    if (source.type === 'computed_file') strings.push(...source.generator.command);
    if (source.type === 'file') strings.push(source.path);
  }
  return strings;
}

/** The files that define the agent, as absolute paths: its configuration, then whatever its commands name. */
function definingFiles(agent: LoadedAgent): Set<string> {
  // The prompt whether it exists or not (a missing file has no digest): the set is kept per loaded agent,
  // and a prompt added later changes the fingerprint.
  const files = new Set<string>([agent.configFile, ...agent.imports, agent.context.file]);
  files.add(resolve(agent.home, agent.config.system_prompt ?? 'system_prompt.md'));
  if (agent.hooksFile !== undefined) files.add(agent.hooksFile);
  for (const string of namedStrings(agent)) {
    for (const word of candidateWords(string)) {
      const path = pathInAgent(word, agent.home);
      if (path !== undefined) files.add(path);
    }
  }
  return files;
}

/** The fingerprint's own hash: of the lines `<sha256>  <path>\n`, in path order (what `sha256sum` prints). */
export function fingerprintOf(files: readonly { path: string; sha256: string }[]): AgentFingerprint {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { sha256: sha256(sorted.map((file) => `${file.sha256}  ${file.path}\n`).join('')), files: sorted };
}

/**
 * The agent's version as a content hash: agent.yaml, every import, system_prompt.md, context.yaml,
 * hooks.yaml, and every regular file inside the agent directory that a tool, MCP server, hook or context
 * source names (`${AGENT_HOME}/tools/x.sh`, or a path relative to the agent directory), each with its
 * sha256, sorted by path relative to the agent directory. Read from disk now, as hostile input (the agent
 * may sit in a workspace): a link that leaves the agent directory, a non-regular file or one past
 * FINGERPRINT_FILE_MAX_BYTES is not part of it.
 */
export function agentFingerprint(agent: LoadedAgent): AgentFingerprint {
  const paths = definingFilesOf.get(agent) ?? definingFiles(agent);
  definingFilesOf.set(agent, paths);
  const files: { path: string; sha256: string }[] = [];
  for (const path of paths) {
    const digest = fileDigest(path, agent.home);
    if (digest !== undefined) files.push({ path: relative(agent.home, path), sha256: digest });
  }
  return fingerprintOf(files);
}

/** The files that define each loaded agent: its configuration does not change once loaded. */
const definingFilesOf = new WeakMap<LoadedAgent, Set<string>>();

/** A file's sha256, by its identity on disk when hashed (see fileDigest). */
const digests = new Map<string, { identity: string; sha256: string }>();

/** How recent a change may be for its file's digest not to be kept: two writes in one clock tick keep one ctime. */
const SETTLED_NS = 2_000_000_000n;

/**
 * The sha256 of an agent's file, read as hostile input (a link that leaves the agent directory, a
 * non-regular file or one past FINGERPRINT_FILE_MAX_BYTES has none), or undefined. A batch checks the
 * fingerprint before every request of every run: a regular file whose device, inode, size, mtime and
 * ctime are those it had when hashed is not read again (the kernel sets ctime on every write, and a file
 * changed in the last two seconds is always read, as its next write could keep the same ctime). See
 * docs/decisions/tool-launcher.md for the figures.
 */
function fileDigest(path: string, home: string): string | undefined {
  const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  const identity = stat?.isFile() ? `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : undefined;
  const known = digests.get(path);
  if (identity !== undefined && known?.identity === identity) return known.sha256;
  // Imports may sit outside the agent directory (in its repository): they were resolved by the loader.
  const read = readUntrustedFile(path, { allowedRoots: [home], maxBytes: FINGERPRINT_FILE_MAX_BYTES });
  if (read.kind !== 'file') {
    digests.delete(path);
    return undefined;
  }
  const digest = sha256(read.bytes);
  const settled = stat !== undefined && BigInt(Date.now()) * 1_000_000n - stat.ctimeNs > SETTLED_NS;
  if (identity !== undefined && settled) digests.set(path, { identity, sha256: digest });
  else digests.delete(path);
  return digest;
}

/** Keeps the fingerprint this engine records as the run's, when asked to (`pinAgentVersion`); returns it. */
export function pinAgent(context: RunContext, fingerprint: AgentFingerprint, pin: boolean | undefined): AgentFingerprint {
  if (pin === true) context.pinnedAgent = fingerprint;
  return fingerprint;
}

/** Why the run must stop before its next request: the agent's files changed since it was pinned; undefined when not. */
export function agentChangeReason(context: RunContext): string | undefined {
  if (context.pinnedAgent === undefined) return undefined;
  const changes = compareFingerprints(context.pinnedAgent, agentFingerprint(context.agent));
  if (changes.same) return undefined;
  return `the agent's files changed while the run was going (${describeFingerprintChanges(changes)}); it stopped before sending a request made from another version of the agent`;
}
