import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The built binary, as a tool runs it: `pnpm test` here runs tsup first.
const bin = fileURLToPath(new URL('../bin/delta-sessions.js', import.meta.url));
let cwd: string;

function run(args: string[], input = ''): { status: number | null; json: any; stderr: string } {
  const result = spawnSync(process.execPath, [bin, ...args], { cwd, input, encoding: 'utf8' });
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { status: result.status, json, stderr: result.stderr };
}

beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'delta-sessions-dash-'));
});
afterEach(async () => {
  run(['cleanup']);
  await rm(cwd, { recursive: true, force: true });
});

// The argument-injection warning tells authors to put -- before a value; it must work here (issue 46, item 15).
describe('delta-sessions with -- before the session id', () => {
  it('exec -- ID runs the command given after it or on stdin; end -- ID ends the session', () => {
    const id = run(['start']).json.session_id as string;
    expect(run(['exec', '--', id, 'echo', 'hi'])).toMatchObject({ status: 0, json: { stdout: 'hi\n', exit_code: 0 } });
    expect(run(['exec', '--', id], 'echo piped')).toMatchObject({ status: 0, json: { stdout: 'piped\n', exit_code: 0 } });
    expect(run(['exec', id, '--', 'echo', '-n', 'x'])).toMatchObject({ status: 0, json: { stdout: 'x' } });
    expect(run(['end', '--', id])).toMatchObject({ status: 0, json: { status: 'terminated', session_id: id } });
  });

  it('a value after -- that starts with - is an id, refused as one, never read as an option', () => {
    const help = run(['exec', '--', '--help'], 'true');
    expect(help).toMatchObject({ status: 1, json: { error: { code: 'INVALID_SESSION_ID' } } });
    expect(run(['end', '--', '-h'])).toMatchObject({ status: 1, json: { error: { code: 'INVALID_SESSION_ID' } } });
  });

  it('still says which argument is missing', () => {
    expect(run(['exec', '--'])).toMatchObject({
      status: 2,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('<id>') } },
    });
    expect(run(['end'])).toMatchObject({
      status: 2,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('<id>') } },
    });
  });
});
