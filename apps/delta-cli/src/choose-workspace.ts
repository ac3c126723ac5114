import { createInterface } from 'node:readline/promises';
import { join } from 'node:path';
import { createNextWorkspace, listWorkspaces, readLastUsedWorkspace, workspacesDirectory, writeLastUsedWorkspace } from '@delta/journal';

/** The workspaces in the order they are offered: the last used first, then the others newest first. */
export function orderWorkspaces(existing: readonly string[], lastUsed: string | undefined): string[] {
  const others = existing.filter((id) => id !== lastUsed).reverse();
  return lastUsed !== undefined && existing.includes(lastUsed) ? [lastUsed, ...others] : others;
}

/**
 * Without -w: with -y, or when nobody is at a terminal, a new workspace; otherwise the user picks one
 * (Enter takes the last used workspace, or a new one when there is none).
 */
export async function chooseWorkspace(agentHome: string, yes: boolean): Promise<string> {
  const found = listWorkspaces(agentHome);
  if (yes || found.length === 0 || !process.stdin.isTTY || !process.stderr.isTTY) {
    return createNextWorkspace(agentHome).path;
  }
  const lastUsed = readLastUsedWorkspace(agentHome);
  const existing = orderWorkspaces(found, lastUsed);
  const fallback = lastUsed && found.includes(lastUsed) ? lastUsed : undefined;
  process.stderr.write(`Workspaces of this agent (${workspacesDirectory(agentHome)}):\n`);
  for (const [index, id] of existing.entries()) process.stderr.write(`  ${index + 1}) ${id}${id === fallback ? '  (last used)' : ''}\n`);
  process.stderr.write('  n) a new workspace\n');
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    for (;;) {
      const answer = (await prompt.question(`Choose [${fallback ?? 'n'}]: `)).trim();
      if (answer === 'n' || (answer === '' && !fallback)) return createNextWorkspace(agentHome).path;
      const chosen = answer === '' ? fallback : (existing[Number(answer) - 1] ?? existing.find((id) => id === answer));
      if (chosen) {
        writeLastUsedWorkspace(agentHome, chosen);
        return join(workspacesDirectory(agentHome), chosen);
      }
      process.stderr.write(`"${answer}" is not one of the choices.\n`);
    }
  } finally {
    prompt.close();
  }
}
