// What the hooks e2e test files share: an agent with hooks, and a run of it against the testkit's model
// (closed after each test by the testkit's cleanupTestResources).
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { createTempAgent, createTempDir, startFakeLlm, type ScriptStep } from '@delta/testkit';
import { readJournal } from '@delta/journal';
import { loadAgent, startRun } from './index.js';

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
  const server = await startFakeLlm({ script });
  const workDir = join(await createTempDir('work-'), 'w');
  const result = await startRun({
    agent: loadAgent(agentDir),
    message: 'task',
    workDir,
    environment: { PATH: process.env.PATH, DELTA_API_KEY: 'sk-hooks-secret' },
    baseUrl: server.baseUrl,
  });
  return { result, workDir, server, journal: readJournal(result.paths.journal) };
}
