// Issue 42, fault 7: a models file's entry without base_url sent its key to the default public endpoint,
// ignoring DELTA_BASE_URL and the .env files, while `-v` named the local one.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, type FakeLlm, startFakeLlm } from '@delta/testkit';
import { runDelta } from './test-support.js';

const KEY = 'sk-study-entry-0123456789abcdef';

const servers: FakeLlm[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await cleanupTestResources();
});

async function server(): Promise<FakeLlm> {
  const started = await startFakeLlm({ apiKey: KEY, script: () => ({ content: 'done' }) });
  servers.push(started);
  return started;
}

/** An agent, a workspace, and a models file whose one entry names its key's variable but no base_url. */
async function setting() {
  const agent = await createTempAgent({ agentYaml: { name: 'plain', llm: { model: 'agent-model', max_retries: 0 } } });
  const directory = await createTempDir('entry-');
  const models = join(directory, 'models.yaml');
  writeFileSync(models, 'models:\n  - name: local\n    model: local-id\n    api_key_env: STUDY_KEY\n    max_retries: 0\n');
  return { agent, models, directory, work: join(directory, 'w') };
}

const authorizations = (model: FakeLlm) => model.requests.map((request) => request.headers.authorization);

describe('a models file entry without base_url finds its endpoint as a run does', () => {
  it('delta run goes to DELTA_BASE_URL with the entry’s key, and -v names that URL', async () => {
    const { agent, models, work } = await setting();
    const named = await server();
    const result = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'go', '-y', '--models', models, '-v'], {
      env: { STUDY_KEY: KEY, DELTA_BASE_URL: named.baseUrl },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(authorizations(named)).toEqual([`Bearer ${KEY}`]);
    expect(named.requests[0]!.body).toMatchObject({ model: 'local-id' });
    expect(result.stderr).toContain(
      `API key: STUDY_KEY from the process environment; base URL ${named.baseUrl} from the process environment`,
    );
  });

  it('delta run goes to the agent’s .env DELTA_BASE_URL, over the environment’s, and -v names it', async () => {
    const { agent, models, work } = await setting();
    const inFile = await server();
    const inEnvironment = await server();
    writeFileSync(join(agent, '.env'), `DELTA_BASE_URL=${inFile.baseUrl}\n`);
    const result = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'go', '-y', '--models', models, '-v'], {
      env: { STUDY_KEY: KEY, DELTA_BASE_URL: inEnvironment.baseUrl },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(authorizations(inFile)).toEqual([`Bearer ${KEY}`]);
    expect(authorizations(inEnvironment)).toEqual([]);
    expect(result.stderr).toContain(`base URL ${inFile.baseUrl} from ${join(agent, '.env')}`);
  });

  it('--base-url wins over both', async () => {
    const { agent, models, work } = await setting();
    const chosen = await server();
    const other = await server();
    const result = await runDelta(
      ['run', '--agent', agent, '-w', work, '-m', 'go', '-y', '--models', models, '--base-url', chosen.baseUrl, '-v'],
      { env: { STUDY_KEY: KEY, DELTA_BASE_URL: other.baseUrl } },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(authorizations(chosen)).toEqual([`Bearer ${KEY}`]);
    expect(authorizations(other)).toEqual([]);
    expect(result.stderr).toContain(`base URL ${chosen.baseUrl} from the baseUrl option`);
  });

  it('delta batch runs the entry at DELTA_BASE_URL with its key', async () => {
    const { agent, models, directory } = await setting();
    const named = await server();
    const tasks = join(directory, 'tasks.jsonl');
    writeFileSync(tasks, `${JSON.stringify({ id: 't1', message: 'go' })}\n${JSON.stringify({ id: 't2', message: 'go' })}\n`);
    const result = await runDelta(['batch', tasks, '--agent', agent, '--out', join(directory, 'out'), '--models', models], {
      env: { STUDY_KEY: KEY, DELTA_BASE_URL: named.baseUrl },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(authorizations(named)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });
});
