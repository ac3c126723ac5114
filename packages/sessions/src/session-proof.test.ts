import { type ChildProcess, spawn } from 'node:child_process';
import { processStartTicks } from '@delta/process-identity';
import { afterEach, describe, expect, it } from 'vitest';
import { proveSessionProcess, sessionMarkerVariable } from './session-proof.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function sleeper(env: NodeJS.ProcessEnv = {}, detached = true): Promise<number> {
  const child = spawn('sleep', ['60'], { env: { ...process.env, ...env }, detached, stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

describe('proveSessionProcess', () => {
  it('proves a process whose start time matches and whose own environment holds the marker', async () => {
    const pid = await sleeper({ [sessionMarkerVariable]: 'm'.repeat(32) });
    expect(proveSessionProcess({ pid, startTicks: processStartTicks(pid), marker: 'm'.repeat(32), groupLeader: true })).toEqual({
      proven: true,
      pid,
    });
  });

  it('proves nothing else, saying why: another marker, another start time, no group of its own, no claim, itself', async () => {
    const pid = await sleeper({ [sessionMarkerVariable]: 'm'.repeat(32) });
    const ticks = processStartTicks(pid);
    const why = (claim: Parameters<typeof proveSessionProcess>[0]) => {
      const proof = proveSessionProcess(claim);
      return proof.proven ? 'proven' : proof.reason;
    };
    expect(why({ pid, startTicks: ticks, marker: 'x'.repeat(32) })).toContain("lacks the session's marker");
    expect(why({ pid, startTicks: '1', marker: 'm'.repeat(32) })).toContain('started at another time');
    expect(why({ pid, startTicks: undefined, marker: undefined })).toContain('records no marker');
    const inGroup = await sleeper({ [sessionMarkerVariable]: 'm'.repeat(32) }, false);
    expect(why({ pid: inGroup, startTicks: processStartTicks(inGroup), marker: 'm'.repeat(32), groupLeader: true })).toContain(
      'does not lead its own process group',
    );
    expect(why({ pid: process.pid, startTicks: processStartTicks(process.pid), marker: 'm' })).toContain(
      'this command or one of its parents',
    );
    expect(proveSessionProcess({ pid: 2 ** 22 + 12345, startTicks: '1', marker: 'm' })).toMatchObject({ proven: false, running: false });
  });
});
