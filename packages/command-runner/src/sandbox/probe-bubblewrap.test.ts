import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { probeBubblewrap } from './probe-bubblewrap.js';

const root = mkdtempSync(join(tmpdir(), 'delta-probe-bubblewrap-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('probeBubblewrap', () => {
  it('names the version needed when bubblewrap is older than 0.8.0 (no --disable-userns)', () => {
    // What bubblewrap 0.6 answers to an option it does not know.
    const old = join(root, 'bwrap-0.6');
    writeFileSync(old, '#!/bin/sh\necho "bwrap: Unknown option --disable-userns" >&2\nexit 1\n');
    chmodSync(old, 0o755);
    const probe = probeBubblewrap({ DELTA_BUBBLEWRAP: old, PATH: process.env.PATH });
    expect(probe).toEqual({
      ok: false,
      problem: `bubblewrap (${old}) is too old: bwrap: Unknown option --disable-userns (the sandbox needs bubblewrap 0.8.0 or later, for --disable-userns)`,
    });
  });
});
