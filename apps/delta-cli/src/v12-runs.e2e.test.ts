// Issue 46, item 13: a v1.2 workspace (spec 003 §2.1: .delta/runs/<id>/execution/, runtime_io/ beside it,
// runs/LATEST, schema_version.txt) is read in place by list, show, log and view, and moved to the v1.3
// layout by the first command that writes to it, delta continue, with every record kept.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTestResources, createTempAgent, createTempDir, startFakeLlm, modelEnv } from '@delta/testkit';
import { runDelta } from './test-support.js';

afterEach(cleanupTestResources);

/** Rewrites a run made by this engine into the layout v1.2 kept it in: what a v1.2 user has on disk. */
function toV12(work: string, runId: string, schemaVersion: string | undefined): void {
  const control = join(work, '.delta');
  const legacy = join(control, 'runs', runId);
  mkdirSync(join(legacy, 'execution'), { recursive: true });
  for (const file of ['journal.jsonl', 'metadata.json', 'engine.log'])
    renameSync(join(control, runId, file), join(legacy, 'execution', file));
  renameSync(join(control, runId, 'io'), join(legacy, 'runtime_io'));
  const metadata = JSON.parse(readFileSync(join(legacy, 'execution', 'metadata.json'), 'utf8')) as Record<string, unknown>;
  if (schemaVersion === undefined) delete metadata.schema_version;
  else metadata.schema_version = schemaVersion;
  writeFileSync(join(legacy, 'execution', 'metadata.json'), JSON.stringify(metadata, null, 2));
  renameSync(join(control, 'LATEST'), join(control, 'runs', 'LATEST'));
  renameSync(join(control, 'VERSION'), join(control, 'schema_version.txt'));
  writeFileSync(join(control, 'schema_version.txt'), '1.2\n');
  for (const name of readdirSync(join(control, runId))) renameSync(join(control, runId, name), join(legacy, name));
  rmdirSync(join(control, runId));
  rmSync(join(control, 'workspace-env.json'), { force: true }); // v1.3's, not v1.2's
}

async function v12Workspace(schemaVersion: string | undefined) {
  const server = await startFakeLlm({
    script: [
      { content: 'Noting.', tool_calls: [{ name: 'note', arguments: { text: 'hi' } }] },
      { content: 'Noted.' },
      { content: 'Again.' },
    ],
  });
  const agent = await createTempAgent({
    agentYaml: { name: 'old', llm: { model: 'm' }, tools: [{ name: 'note', exec: 'tee note.txt', stdin: 'text' }] },
  });
  const work = join(await createTempDir('v12-'), 'W001');
  const env = modelEnv(server);
  const first = await runDelta(['run', '--agent', agent, '-w', work, '-m', 'Take a note', '-q'], { env });
  expect(first.exitCode, first.stderr).toBe(0);
  const runId = readFileSync(join(work, '.delta', 'LATEST'), 'utf8').trim();
  toV12(work, runId, schemaVersion);
  return { work, env, runId };
}

describe('a v1.2 run', () => {
  it.each([['1.2'], [undefined]])(
    'with schema_version %s is found by list, show, log and view, untouched, then migrated by continue with its records',
    async (version) => {
      const { work, env, runId } = await v12Workspace(version);
      const before = readdirSync(join(work, '.delta')).sort();
      expect(before).toEqual(['runs', 'schema_version.txt']);

      const list = await runDelta(['list', '-w', work, '--format', 'raw']);
      expect(list.exitCode, list.stderr).toBe(0);
      expect(list.stdout).toBe(`${runId}\n`);
      const show = await runDelta(['show', 'run', '-w', work]);
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toContain(runId);
      const action = await runDelta(['show', 'action', '1', '-w', work, '--stdout']);
      expect(action.exitCode, action.stderr).toBe(0);
      expect(action.stdout).toBe('hi');
      const log = await runDelta(['log', '-w', work]);
      expect(log.exitCode, log.stderr).toBe(0);
      expect(log.stdout).toContain('Noted.');
      const view = await runDelta(['view', '-w', work, '--stdout']);
      expect(view.exitCode, view.stderr).toBe(0);
      expect(view.stdout).toContain('Noted.');
      expect(readdirSync(join(work, '.delta')).sort()).toEqual(before); // reading writes nothing

      const oldJournal = readFileSync(join(work, '.delta', 'runs', runId, 'execution', 'journal.jsonl'), 'utf8');
      const records = readdirSync(join(work, '.delta', 'runs', runId, 'runtime_io', 'tool_executions'));
      const continued = await runDelta(['continue', '-w', work, '-m', 'Once more', '-q'], { env });
      expect(continued.exitCode, continued.stderr).toBe(0);
      expect(continued.stdout).toBe('Again.\n');

      const control = join(work, '.delta');
      expect(readdirSync(control)).toEqual(expect.arrayContaining(['LATEST', 'VERSION', runId]));
      expect(readdirSync(control)).not.toContain('runs');
      expect(readdirSync(control)).not.toContain('schema_version.txt');
      expect(readFileSync(join(control, 'VERSION'), 'utf8')).toBe('1.3\n');
      expect(readFileSync(join(control, 'LATEST'), 'utf8').trim()).toBe(runId);
      const run = join(control, runId);
      const journal = readFileSync(join(run, 'journal.jsonl'), 'utf8');
      expect(journal.startsWith(oldJournal)).toBe(true);
      expect(journal).toContain(`Migrated this v1.2 run from .delta/runs/${runId}/execution/ to .delta/${runId}/`);
      expect(readdirSync(join(run, 'io', 'tool_executions'))).toEqual(expect.arrayContaining(records));
      expect(existsSync(join(run, 'runtime_io'))).toBe(false);
      expect(JSON.parse(readFileSync(join(run, 'metadata.json'), 'utf8'))).toMatchObject({
        schema_version: '1.3',
        status: 'COMPLETED',
        iterations: 3,
      });
      const again = await runDelta(['list', '-w', work, '--format', 'raw']);
      expect(again.stdout).toBe(`${runId}\n`);
    },
  );

  it('is refused, with exit code 2 and the field, when its metadata.json has a version this engine does not read', async () => {
    const { work } = await v12Workspace('9');
    for (const command of [
      ['show', 'run', '-w', work],
      ['continue', '-w', work, '-m', 'x'],
    ]) {
      const refused = await runDelta(command, {});
      expect(refused.exitCode, `${command[0]}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toContain('has schema_version 9; this engine reads 1.3 and 1.2');
    }
  });
});
