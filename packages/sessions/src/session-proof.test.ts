import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processStartTicks } from '@delta/process-identity';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { proveSessionProcess, sessionDirectoryVariable, sessionMarkerVariable } from './session-proof.js';

const children: ChildProcess[] = [];
let root: string;
let directory: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'delta-proof-')));
  directory = join(root, 'sess_one');
  mkdirSync(directory);
});
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

const marker = 'm'.repeat(32);
const ownEnvironment = () => ({ [sessionMarkerVariable]: marker, [sessionDirectoryVariable]: directory });

async function sleeper(env: NodeJS.ProcessEnv = {}, detached = true): Promise<number> {
  const child = spawn('sleep', ['60'], { env: { ...process.env, ...env }, detached, stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

describe('proveSessionProcess', () => {
  it('proves a process whose start time matches and whose own environment holds the marker and names this directory', async () => {
    const pid = await sleeper(ownEnvironment());
    expect(proveSessionProcess({ pid, startTicks: processStartTicks(pid), marker, directory, groupLeader: true })).toEqual({
      proven: true,
      pid,
    });
    // The same directory reached through a link is the same directory.
    symlinkSync(root, join(root, 'alias'));
    expect(
      proveSessionProcess({ pid, startTicks: processStartTicks(pid), marker, directory: join(root, 'alias', 'sess_one') }).proven,
    ).toBe(true);
  });

  it('proves nothing else, saying why: another marker, another start time, another directory, no group of its own, no claim, itself', async () => {
    const pid = await sleeper(ownEnvironment());
    const ticks = processStartTicks(pid);
    const why = (claim: Parameters<typeof proveSessionProcess>[0]) => {
      const proof = proveSessionProcess(claim);
      return proof.proven ? 'proven' : proof.reason;
    };
    expect(why({ pid, startTicks: ticks, marker: 'x'.repeat(32), directory })).toContain("lacks the session's marker");
    expect(why({ pid, startTicks: '1', marker, directory })).toContain('started at another time');
    expect(why({ pid, startTicks: undefined, marker: undefined, directory })).toContain('records no marker');
    // A copy of the session directory (pid, start time and marker copied with it) elsewhere.
    const copy = join(root, 'elsewhere');
    mkdirSync(copy);
    expect(why({ pid, startTicks: ticks, marker, directory: copy })).toContain(`another session directory (${directory})`);
    const unnamed = await sleeper({ [sessionMarkerVariable]: marker });
    expect(why({ pid: unnamed, startTicks: processStartTicks(unnamed), marker, directory })).toContain(
      'another session directory (none named)',
    );
    const inGroup = await sleeper(ownEnvironment(), false);
    expect(why({ pid: inGroup, startTicks: processStartTicks(inGroup), marker, directory, groupLeader: true })).toContain(
      'does not lead its own process group',
    );
    expect(why({ pid: process.pid, startTicks: processStartTicks(process.pid), marker: 'm', directory })).toContain(
      'this command or one of its parents',
    );
    expect(proveSessionProcess({ pid: 2 ** 22 + 12345, startTicks: '1', marker: 'm', directory })).toMatchObject({
      proven: false,
      running: false,
    });
  });
});
