import type { RunMetadata } from '@delta/journal';
import { describe, expect, it } from 'vitest';
import { NO_COLORS } from '../inspect/color.js';
import type { ListedRun } from './list-runs.js';
import { runTable } from './run-table.js';

const metadata = (run_id: string, extra: Partial<RunMetadata> = {}): RunMetadata => ({
  schema_version: '1.3',
  run_id,
  workspace_id: 'W001',
  agent_name: 'a',
  status: 'COMPLETED',
  created_at: '2026-01-02T03:04:05.000Z',
  updated_at: '2026-01-02T03:04:07.500Z',
  end_time: '2026-01-02T03:04:07.500Z',
  initial_message: 'Summarise\nthe README',
  iterations: 2,
  max_iterations: 30,
  error: null,
  agent_home: '/a',
  work_dir: '/w',
  usage: { prompt_tokens: 1000, completion_tokens: 234, total_tokens: 1234, cached_tokens: 500 },
  estimated_cost: { amount: 0.0125, currency: 'USD', input_per_million: 2.5, output_per_million: 10 },
  ...extra,
});
const run = (runId: string, extra: Partial<RunMetadata> = {}): ListedRun => ({
  runId,
  startedAt: '',
  workDir: '/w',
  workspace: 'W001',
  metadata: metadata(runId, extra),
});

describe("delta list's table", () => {
  it('gives each run its row, a run it cannot read UNREADABLE, and the totals of every status, tokens and cost', () => {
    const unreadable: ListedRun = { runId: 'broken', startedAt: '', workDir: '/w', workspace: 'W001', problem: 'bad JSON' };
    const lines = runTable([run('r1'), run('r2', { status: 'FAILED', usage: undefined }), unreadable], false, NO_COLORS).split('\n');
    expect(lines[0]).toMatch(/^RUN ID +STATUS +ITER +TOKENS +CACHED +REASONING +COST +STARTED +DURATION +TASK$/);
    expect(lines[1]).toMatch(/^r1 +COMPLETED +2\/30 +1,234 +500 +- +0\.0125 USD +\S+ \S+ +2\.5s +Summarise the README$/);
    expect(lines[2]).toMatch(/^r2 +FAILED +2\/30 +- +- +- +0\.0125 USD /);
    expect(lines[3]).toMatch(/^broken +UNREADABLE +- +- +- +- +- +- +- +-$/);
    expect(lines[4]).toBe('total: 3 runs (1 COMPLETED, 1 FAILED, 1 UNREADABLE) · 1,234 tokens · cost 0.0250 USD');
    expect(lines[5]).toBe('');
  });

  it('has a KIND column only when a replay or a fork is listed, and WORKSPACE when listing an agent', () => {
    expect(runTable([run('r1')], true, NO_COLORS)).toMatch(/^RUN ID +WORKSPACE +STATUS /);
    const fork = run('f1', { forked_from: { run_id: 'r1', iteration: 2 } } as Partial<RunMetadata>);
    const table = runTable([run('r1'), fork], false, NO_COLORS).split('\n');
    expect(table[0]).toMatch(/^RUN ID +KIND +STATUS /);
    expect(table[1]).toMatch(/^r1 +run +COMPLETED /);
    expect(table[2]).toMatch(/^f1 +fork of r1 @2 +COMPLETED /);
  });
});
