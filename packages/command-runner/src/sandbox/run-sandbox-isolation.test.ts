import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSandbox, runCommand } from '../index.js';
import {
  bubblewrap,
  call,
  control,
  launcher,
  outside,
  policy,
  port,
  root,
  sh,
  skip,
  startLauncherAndServer,
  stopLauncherAndServer,
  workspace,
} from './run-sandbox.test-support.js';

beforeAll(startLauncherAndServer);
afterAll(stopLauncherAndServer);

describe.skipIf(skip)('a sandboxed tool (real bubblewrap)', () => {
  it('writes the workspace, but nothing outside it and nothing under .delta/', async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const result = await sh(
        sandbox,
        [
          'echo made > made.txt',
          `echo no > ${outside}/new.txt; rm -f ${outside}/kept.txt`,
          'echo no > .delta/new.txt; echo overwritten > .delta/journal.jsonl; rm -rf .delta; rm -rf ./.delta/journal.jsonl',
          `touch /etc/delta-sandbox-test 2>/dev/null; echo "home: $(touch "$HOME/delta-sandbox-test" 2>&1 | grep -c Read-only)"`,
          'echo tmp > /tmp/run-private.txt',
          'true',
        ].join('\n'),
      );
      expect(result.exitCode).toBe(0);
      expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
      expect(existsSync(join(outside, 'new.txt'))).toBe(false);
      expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('kept\n');
      expect(readdirSync(control)).toEqual(['journal.jsonl']);
      expect(readFileSync(join(control, 'journal.jsonl'), 'utf8')).toBe('the journal\n');
      expect(existsSync('/etc/delta-sandbox-test')).toBe(false);
      // /tmp is the run's own: not the machine's, and shared by the run's calls.
      expect(existsSync('/tmp/run-private.txt')).toBe(false);
      expect(readFileSync(join(sandbox.tmpDir, 'run-private.txt'), 'utf8')).toBe('tmp\n');
      expect((await sh(sandbox, 'cat /tmp/run-private.txt')).stdout.head).toBe('tmp\n');
      expect(readFileSync(join(root, `call-${call - 1}.err`), 'utf8')).toMatch(/Read-only file system/);
    } finally {
      await sandbox.stop();
    }
  });

  it("sees none of the engine's processes, only the run's own", async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const result = await sh(
        sandbox,
        `for p in /proc/[0-9]*; do echo "\${p#/proc/} $(tr '\\0' ' ' < $p/cmdline)"; done; test -e /proc/${process.pid} && echo ENGINE-"VISIBLE"`,
      );
      const lines = result.stdout.head.trim().split('\n');
      expect(result.stdout.head).not.toContain('ENGINE-VISIBLE');
      // The launcher (pid 1: no bubblewrap in there, so no argv naming this machine's paths), the call's
      // watcher (a fork of it), the tool's shell and what it runs: nothing else.
      expect(lines[0]).toBe('1 delta-sandbox-launcher --library-path /tmp/.delta-io/lib /tmp/.delta-io/bash --norc --noprofile ');
      for (const line of lines) expect(line).toMatch(/^\d+ (delta-sandbox-launcher|cat |sh -c |tr )/);
      expect(lines.join('\n')).not.toMatch(/bwrap|node|vitest|delta-launcher|delta-sandbox-tmp|delta-sandboxes/);
    } finally {
      await sandbox.stop();
    }
  });

  const connect = `node -e 'require("net").connect(${'${PORT}'}, "127.0.0.1").on("data", (d) => { process.stdout.write(d); process.exit(0) }).on("error", (e) => { console.log(e.code); process.exit(3) })'`;
  it('reaches a loopback server outside the sandbox only when the network is on', async () => {
    for (const network of [true, false]) {
      const sandbox = RunSandbox.start(policy(network), bubblewrap.path!);
      try {
        const result = await sh(sandbox, connect.replace('${PORT}', String(port)));
        if (network) expect(result.stdout.head).toBe('hello from outside\n');
        else {
          expect(result.exitCode).toBe(3);
          expect(result.stdout.head).toBe('ECONNREFUSED\n');
        }
      } finally {
        await sandbox.stop();
      }
    }
  });

  it("leaves no tool a way to a finished call's output, nor to anything else under .delta/", async () => {
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const first = await sh(sandbox, 'echo first');
      const firstFile = join(root, `call-${call}.out`);
      expect(readFileSync(firstFile, 'utf8')).toBe('first\n');
      // Every file any process in there has open, and every output name: written to where possible.
      const second = await sh(
        sandbox,
        [
          `for f in /proc/[0-9]*/fd/* /proc/[0-9]*/cwd /proc/[0-9]*/root; do echo "$(readlink $f)"; done | sort -u > ${workspace}/open.txt`,
          'for f in /proc/[0-9]*/fd/* /tmp/.delta-io/*; do echo overwritten > $f; done 2>/dev/null',
          `ls -a /tmp > ${workspace}/tmp.txt`,
        ].join('\n'),
      );
      expect(first.exitCode).toBe(0);
      expect(second.exitCode).toBe(0);
      expect(readFileSync(firstFile, 'utf8')).toBe('first\n');
      expect(readdirSync(control)).toEqual(['journal.jsonl']);
      // The launcher's directory, where each call's files are, is nowhere in there: not in /tmp, and none
      // of its files is open under a name a tool could use (the call's own outputs read as "/").
      expect(readFileSync(join(workspace, 'tmp.txt'), 'utf8')).not.toContain('.delta-io');
      const open = readFileSync(join(workspace, 'open.txt'), 'utf8').split('\n');
      expect(open.filter((path) => path.startsWith(root) && path !== workspace && !path.startsWith(join(workspace, 'open.txt')))).toEqual(
        [],
      );
      expect(open.filter((path) => path.includes('.delta-io') || path.includes('delta-sandbox-tmp'))).toEqual([]);
      expect(open).toContain('/');
    } finally {
      await sandbox.stop();
    }
  });

  it('copies the output of a record on another file system, never through a link a tool put there', async () => {
    const other = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/delta-sandbox-test-') : undefined;
    if (other === undefined || statSync(other).dev === statSync(tmpdir()).dev) {
      console.warn('!!! SKIPPING the cross-file-system output test: /dev/shm is missing or on the file system of the temp directory');
      return;
    }
    // A file the tools cannot see (the machine's temp directory is not the sandbox's /tmp).
    const secret = join(root, 'secret.txt');
    writeFileSync(secret, 'secret\n');
    const sandbox = RunSandbox.start(policy(true), bubblewrap.path!);
    try {
      const run = (script: string, name: string) =>
        runCommand({
          file: 'sh',
          args: ['-c', script],
          cwd: workspace,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stdoutFile: join(other, `${name}.out`),
          stderrFile: join(other, `${name}.err`),
          launcher,
          sandbox,
        });
      expect((await run('echo copied; echo oops >&2', 'plain')).stdout.head).toBe('copied\n');
      expect(readFileSync(join(other, 'plain.out'), 'utf8')).toBe('copied\n');
      expect(readFileSync(join(other, 'plain.err'), 'utf8')).toBe('oops\n');
      const hostile = await run(
        `cat ${secret} 2>/dev/null; for f in /tmp/.delta-io/*; do rm -f $f; ln -s ${secret} $f; done; echo replaced`,
        'hostile',
      );
      expect(hostile.exitCode).toBe(0);
      expect(readFileSync(join(other, 'hostile.out'), 'utf8')).not.toContain('secret');
    } finally {
      await sandbox.stop();
      rmSync(other, { recursive: true, force: true });
    }
  });
});
