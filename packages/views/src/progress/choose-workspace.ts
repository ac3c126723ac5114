import { createInterface } from 'node:readline/promises';
import { join } from 'node:path';
import { createNextWorkspace, listWorkspaces, readLastUsedWorkspace, workspacesDirectory, writeLastUsedWorkspace } from '@delta/journal';

/** The workspaces in the order they are offered: the last used first, then the others newest first. */
export function orderWorkspaces(existing: readonly string[], lastUsed: string | undefined): string[] {
  const others = existing.filter((id) => id !== lastUsed).reverse();
  return lastUsed !== undefined && existing.includes(lastUsed) ? [lastUsed, ...others] : others;
}

/** Where the choice is offered: `input` (stdin) and `output` (stderr); a choice only when both are a terminal. */
export interface ChoiceStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * `delta run` without -w: with -y, or when nobody is at a terminal, a new workspace; otherwise the user picks one
 * (Enter takes the last used workspace, or a new one when there is none). Returns the workspace's directory.
 */
export async function chooseWorkspace(agentHome: string, yes: boolean, streams: ChoiceStreams): Promise<string> {
  const found = listWorkspaces(agentHome);
  if (yes || found.length === 0 || streams.input.isTTY !== true || streams.output.isTTY !== true) {
    return createNextWorkspace(agentHome).path;
  }
  const lastUsed = readLastUsedWorkspace(agentHome);
  const existing = orderWorkspaces(found, lastUsed);
  const fallback = lastUsed && found.includes(lastUsed) ? lastUsed : undefined;
  streams.output.write(`Workspaces of this agent (${workspacesDirectory(agentHome)}):\n`);
  for (const [index, id] of existing.entries()) streams.output.write(`  ${index + 1}) ${id}${id === fallback ? '  (last used)' : ''}\n`);
  streams.output.write('  n) a new workspace\n');
  const prompt = createInterface({ input: streams.input, output: streams.output });
  try {
    for (;;) {
      const answer = (await prompt.question(`Choose [${fallback ?? 'n'}]: `)).trim();
      if (answer === 'n' || (answer === '' && !fallback)) return createNextWorkspace(agentHome).path;
      const chosen = answer === '' ? fallback : (existing[Number(answer) - 1] ?? existing.find((id) => id === answer));
      if (chosen) {
        writeLastUsedWorkspace(agentHome, chosen);
        return join(workspacesDirectory(agentHome), chosen);
      }
      streams.output.write(`"${answer}" is not one of the choices.\n`);
    }
  } finally {
    prompt.close();
  }
}
