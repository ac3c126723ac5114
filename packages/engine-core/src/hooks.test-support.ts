// What the hooks e2e test files share: the testkit's model for each run (closed after each test), and an agent with hooks.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, createTempAgent, createTempDir, startFakeLlm, type FakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

/** The model server of the test's latest run (started by `run`), closed by `closeServer` (an afterEach). */
export let server: FakeLlm | undefined;

export async function closeServer(): Promise<void> {
  await server?.close();
  server = undefined;
  await cleanupTempDirs();
}

export async function agentWith(hooksYaml: string, files: Record<string, string> = {}) {
  const agent = await createTempAgent({
    agentYaml: {
      name: 'hooked',
      llm: { model: 'm', max_retries: 0 },
      tools: [
        { name: 'touch', description: 'Create a file', exec: 'touch ${path}' },
        { name: 'say', description: 'Print text', exec: 'echo ${text}' },
      ],
    },
    hooksYaml,
    files,
  });
  for (const name of Object.keys(files)) if (name.endsWith('.sh')) chmodSync(join(agent, name), 0o755);
  return agent;
}

export async function run(agentDir: string, script: ScriptStep[]) {
  server = await startFakeLlm({ script });
  const workDir = join(await createTempDir('work-'), 'w');
  const result = await startRun({
    agent: loadAgent(agentDir),
    message: 'task',
    workDir,
    environment: { PATH: process.env.PATH, DELTA_API_KEY: 'sk-hooks-secret' },
    baseUrl: server.baseUrl,
  });
  return { result, workDir, journal: readJournal(result.paths.journal) };
}
