import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { chooseWorkspace, orderWorkspaces } from './choose-workspace.js';

afterAll(cleanupTempDirs);

describe('choosing a workspace', () => {
  it('offers the last used workspace first, then the others newest first', () => {
    expect(orderWorkspaces(['W001', 'W002', 'W003'], 'W002')).toEqual(['W002', 'W003', 'W001']);
    expect(orderWorkspaces(['W001', 'W002'], undefined)).toEqual(['W002', 'W001']);
    expect(orderWorkspaces(['W001'], 'W009')).toEqual(['W001']);
  });

  it('with -y (or without a terminal) creates the next W00N and records it in LAST_USED', async () => {
    const agent = await createTempAgent();
    expect(await chooseWorkspace(agent, true)).toBe(join(agent, 'workspaces/W001'));
    expect(await chooseWorkspace(agent, false)).toBe(join(agent, 'workspaces/W002'));
    expect(readFileSync(join(agent, 'workspaces/LAST_USED'), 'utf8')).toBe('W002\n');
  });
});
