import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { chooseWorkspace, orderWorkspaces } from './choose-workspace.js';

const nobody = { input: new PassThrough(), output: new PassThrough() };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
/** An agent's directory: the workspaces are made under it. */
function agentHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'delta-choose-'));
  dirs.push(dir);
  return dir;
}

/** A person at a terminal who types each of `answers` when asked to choose. */
function terminal(...answers: string[]) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const output = Object.assign(new PassThrough(), { isTTY: true });
  let shown = '';
  output.on('data', (chunk) => {
    shown += String(chunk);
    if (String(chunk).includes('Choose [')) input.write(`${answers.shift()}\n`);
  });
  return { streams: { input, output }, shown: () => shown };
}

describe('choosing a workspace', () => {
  it('offers the last used workspace first, then the others newest first', () => {
    expect(orderWorkspaces(['W001', 'W002', 'W003'], 'W002')).toEqual(['W002', 'W003', 'W001']);
    expect(orderWorkspaces(['W001', 'W002'], undefined)).toEqual(['W002', 'W001']);
    expect(orderWorkspaces(['W001'], 'W009')).toEqual(['W001']);
  });

  it('with -y (or without a terminal) creates the next W00N and records it in LAST_USED', async () => {
    const agent = agentHome();
    expect(await chooseWorkspace(agent, true, nobody)).toBe(join(agent, 'workspaces/W001'));
    expect(await chooseWorkspace(agent, false, nobody)).toBe(join(agent, 'workspaces/W002'));
    expect(readFileSync(join(agent, 'workspaces/LAST_USED'), 'utf8')).toBe('W002\n');
  });

  it('at a terminal, offers the workspaces, Enter taking the last used, and records the one chosen', async () => {
    const agent = agentHome();
    await chooseWorkspace(agent, true, nobody);
    await chooseWorkspace(agent, true, nobody);
    const enter = terminal('');
    expect(await chooseWorkspace(agent, false, enter.streams)).toBe(join(agent, 'workspaces/W002'));
    expect(enter.shown()).toContain('  1) W002  (last used)\n  2) W001\n  n) a new workspace\n');
    const second = terminal('nope', '2');
    expect(await chooseWorkspace(agent, false, second.streams)).toBe(join(agent, 'workspaces/W001'));
    expect(second.shown()).toContain('"nope" is not one of the choices.');
    expect(readFileSync(join(agent, 'workspaces/LAST_USED'), 'utf8')).toBe('W001\n');
    expect(await chooseWorkspace(agent, false, terminal('n').streams)).toBe(join(agent, 'workspaces/W003'));
  });
});
