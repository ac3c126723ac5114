import { runProcess as runRealProcess, type ProcessResult } from '@delta/testkit';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readJournal, readMetadata, type JournalEvent } from '@delta/journal';
import { createTempDir, loadScript, startFakeLlm } from '@delta/testkit';

/** The built `delta` launcher of this repository (turbo builds @delta/cli before these tests). */
export const DELTA_BIN = fileURLToPath(new URL('../../apps/delta-cli/bin/delta.js', import.meta.url));
export const FAKE_LLM_BIN = fileURLToPath(new URL('../../packages/testkit/bin/delta-fake-llm.js', import.meta.url));
export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type { ProcessResult } from '@delta/testkit';

/** Runs a command to completion from the repository root, with the given additions to this environment. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string } = {},
): Promise<ProcessResult> {
  return runRealProcess(command, args, {
    cwd: options.cwd ?? REPOSITORY_ROOT,
    env: { ...process.env, ...options.env },
    input: options.input ?? '',
  });
}

/** The examples of the learning path, in order. */
export const EXAMPLES = [
  '1-basics/hello-world',
  '1-basics/file-reader',
  '1-basics/calculator',
  '2-core-features/interactive-shell',
  '2-core-features/python-repl',
  '2-core-features/memory-folding',
  '2-core-features/mcp-files',
  '3-advanced/delta-agent-generator',
  '3-advanced/code-reviewer',
  '3-advanced/research-agent',
] as const;

/** The root's node_modules/.bin (delta, delta-fake-llm, delta-sessions after `pnpm install`), first on PATH. */
export const PATH_WITH_REPOSITORY_BINS = `${join(REPOSITORY_ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`;

/** This package's node_modules/.bin first on PATH: the MCP server examples use (mcp-server-filesystem) is a devDependency here. */
export const PATH_WITH_EXAMPLE_BINS = `${join(REPOSITORY_ROOT, 'examples', 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`;

/** The user's PATH less every directory that holds a `delta` (vitest puts node_modules/.bin on it). */
export function pathWithoutDelta(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((entry) => entry !== '' && !existsSync(join(entry, 'delta')))
    .join(delimiter);
}

/** Copies an example into a fresh temp directory, so a test never writes into the repository. */
export async function copyExample(example: string): Promise<string> {
  const agent = join(await createTempDir(`${basename(example)}-`), basename(example));
  cpSync(join(REPOSITORY_ROOT, 'examples', example), agent, { recursive: true });
  return agent;
}

/** `delta-fake-llm --script <script> -- delta <args>` with the built CLI, as a user runs it, with no API key. */
export function runScripted(
  script: string,
  deltaArgs: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<ProcessResult> {
  return runProcess(process.execPath, [FAKE_LLM_BIN, '--script', script, '--', process.execPath, DELTA_BIN, ...deltaArgs], {
    cwd: options.cwd,
    env: { DELTA_API_KEY: undefined, OPENAI_API_KEY: undefined, DELTA_BASE_URL: undefined, ...options.env },
  });
}

/**
 * Throws unless every engine of the run ran its tools in the sandbox `mode` (ENGINE_START records it):
 * the examples pass sandboxed, as a user runs them by default. A machine where bubblewrap could not be
 * installed (.ci/run says so in DELTA_TEST_BUBBLEWRAP_UNAVAILABLE, loudly) runs them unsandboxed.
 */
export function expectSandbox(journal: JournalEvent[], mode: 'workspace-write' | 'off' = 'workspace-write'): void {
  const wanted = process.env.DELTA_TEST_BUBBLEWRAP_UNAVAILABLE ? 'off' : mode;
  const starts = journal.filter((event) => event.type === 'ENGINE_START') as Array<{ sandbox?: { mode: string } }>;
  if (starts.length === 0) throw new Error('the journal has no ENGINE_START');
  for (const start of starts) {
    if (start.sandbox?.mode !== wanted) throw new Error(`the run's tools ran in sandbox ${JSON.stringify(start.sandbox)}, not ${wanted}`);
  }
}

/** The latest run of a workspace: its directory, metadata and journal; its tools ran in sandbox `mode`. */
export function latestRun(workspace: string, mode: 'workspace-write' | 'off' = 'workspace-write') {
  const runId = readFileSync(join(workspace, '.delta', 'LATEST'), 'utf8').trim();
  const runDir = join(workspace, '.delta', runId);
  const journal = readJournal(join(runDir, 'journal.jsonl'));
  expectSandbox(journal, mode);
  return {
    runId,
    runDir,
    metadata: readMetadata(join(runDir, 'metadata.json')),
    journal,
  };
}

/** What the model was shown for one tool call: its ACTION_RESULT's observation. */
export function observation(journal: JournalEvent[], actionId: string): string {
  const result = journal.find((event) => event.type === 'ACTION_RESULT' && event.action_id === actionId);
  if (result === undefined) throw new Error(`no ACTION_RESULT for ${actionId}`);
  return (result as { observation_content: string }).observation_content;
}

/** Like runScripted, with the testkit server in this process, so a test can read every request the model got. */
export async function runWithRecordedModel(
  script: string,
  deltaArgs: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<ProcessResult & { requests: Array<{ messages: Array<{ role: string; content: string | null }> }> }> {
  const server = await startFakeLlm({ script: loadScript(script) });
  try {
    const result = await runProcess(process.execPath, [DELTA_BIN, ...deltaArgs], {
      cwd: options.cwd,
      env: { DELTA_BASE_URL: server.baseUrl, DELTA_API_KEY: 'fake-key', OPENAI_API_KEY: undefined, ...options.env },
    });
    const requests = server.requests.filter((request) => request.status === 200).map((request) => request.body as never);
    return { ...result, requests };
  } finally {
    await server.close();
  }
}
