import { describe, expect, it } from 'vitest';
import { parseStateDump, renderEnvironmentFile, sessionChanges } from './shell-state.js';

const dump = (workDir: string, entries: string[], functions = '') =>
  Buffer.from(`${workDir}\0${entries.map((entry) => `${entry}\0`).join('')}\0${functions}`);

describe('shell state', () => {
  it('parses the working directory, the environment (values with = and newlines) and the functions', () => {
    const parsed = parseStateDump(dump('/tmp', ['A=1', 'B=x=y\nz'], 'f () { :; }'));
    expect(parsed?.workDir).toBe('/tmp');
    expect([...(parsed?.environment ?? [])]).toEqual([
      ['A', '1'],
      ['B', 'x=y\nz'],
    ]);
    expect(parsed?.functions).toBe('f () { :; }');
  });

  it('refuses a missing or cut-short report', () => {
    expect(parseStateDump(Buffer.alloc(0))).toBeUndefined();
    expect(parseStateDump(Buffer.from('/tmp\0A=1'))).toBeUndefined();
  });

  it('keeps only what the session changed, with unsets for removed inherited variables', () => {
    const inherited = { HOME: '/home/u', GONE: 'x', PWD: '/a', OPENAI_API_KEY: 'sk-inherited-secret' };
    const state = sessionChanges(
      parseStateDump(dump('/b', ['HOME=/home/u', 'NEW=1', 'PWD=/b', 'OLDPWD=/a', 'SHLVL=2', 'OPENAI_API_KEY=sk-inherited-secret']))!,
      inherited,
    );
    expect(state.exports).toEqual([['NEW', '1']]);
    expect(state.unsets).toEqual(['GONE']);
    expect(renderEnvironmentFile(state)).toBe(
      "# Written by delta-sessions: only what this session changed; inherited variables are not stored.\nexport NEW='1'\nunset GONE\n",
    );
  });

  it("never saves an inherited credential's value under another name, but saves the session's own credentials", () => {
    const inherited = { DELTA_API_KEY: 'dk-123456789' };
    const state = sessionChanges(
      parseStateDump(
        dump('/', ['DELTA_API_KEY=dk-123456789', 'COPY=Bearer dk-123456789', 'MY_TOKEN=own-token-value'], 'f () { echo dk-123456789; }'),
      )!,
      inherited,
    );
    expect(state.exports).toEqual([['MY_TOKEN', 'own-token-value']]);
    expect(state.functions).toBe('');
    expect(state.notes.join('\n')).toContain('COPY was not saved');
  });

  it('quotes values so that sourcing env.sh gives them back exactly', () => {
    const state = sessionChanges(parseStateDump(dump('/', ["Q=it's $HOME `x`"]))!, {});
    expect(renderEnvironmentFile(state)).toContain(`export Q='it'\\''s $HOME \`x\`'`);
  });
});
