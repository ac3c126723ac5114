// The allow-list itself (pure): what a tool gets of the user's environment under each sandbox.env, and
// what hooks and generators get. The runs that prove it end to end: apps/delta-cli/src/tool-environment.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { holdsSecret, toolEnvironment, userEnvironment } from './tool-environment.js';

const KEY = 'sk-test-0123456789abcdef';
const USER = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  USER: 'me',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  TERM: 'xterm',
  TMPDIR: '/var/tmp',
  SHELL: '/bin/zsh',
  PWD: '/home/me/project',
  GITHUB_TOKEN: 'ghp_github_token_0123',
  DELTA_QUEUE: 'redis://:pw@10.0.0.5:6379/0',
  DELTA_API_KEY: KEY,
  MY_COPY: `Bearer ${KEY}`,
  PYTHONPATH: '/opt/py',
  PYTHONHOME: '/opt',
  UID: '0',
};
const ENGINE = { DELTA_RUN_ID: 'r1', DELTA_CWD: '/work' };

describe('toolEnvironment', () => {
  it('gives the core and the engine variables by default, nothing else', () => {
    const { environment, record, warnings } = toolEnvironment(USER, { secrets: [KEY], engine: ENGINE });
    expect(environment).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      USER: 'me',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TERM: 'xterm',
      TMPDIR: '/var/tmp',
      ...ENGINE,
    });
    expect(record).toEqual({ inherit: 'core', names: Object.keys(environment).sort(), withheld: [] });
    expect(warnings).toEqual([]);
  });

  it('passes names and patterns, pins set: values over them, fills in ${AGENT_HOME} and ${CWD}', () => {
    const { environment } = toolEnvironment(USER, {
      policy: { inherit: 'none', pass: ['GITHUB_TOKEN', 'PYTHON*'], set: { PYTHONHOME: '${AGENT_HOME}/py', OUT: '${CWD}/out' } },
      engine: ENGINE,
      paths: { agentHome: '/agent', workDir: '/work' },
    });
    expect(environment).toEqual({
      GITHUB_TOKEN: 'ghp_github_token_0123',
      PYTHONPATH: '/opt/py',
      PYTHONHOME: '/agent/py',
      OUT: '/work/out',
      ...ENGINE,
    });
  });

  it('with inherit: all, never a credential, DELTA_QUEUE, a copy of a secret, nor a name bash cannot export; and says so', () => {
    const { environment, record, warnings } = toolEnvironment(USER, { policy: { inherit: 'all' }, secrets: [KEY] });
    expect(environment).toMatchObject({ GITHUB_TOKEN: 'ghp_github_token_0123', SHELL: '/bin/zsh' });
    for (const name of ['DELTA_QUEUE', 'DELTA_API_KEY', 'MY_COPY', 'UID']) expect(environment).not.toHaveProperty(name);
    expect(record.withheld).toEqual(['DELTA_API_KEY', 'DELTA_QUEUE', 'MY_COPY']);
    expect(warnings).toEqual([
      "not given to tools, as the sandbox's shell cannot export them as they are: UID",
      expect.stringContaining('sandbox.env.inherit: all gives tools your whole environment'),
    ]);
  });

  it('keeps back a passed or set variable whose value holds a secret, with a warning naming it', () => {
    const { environment, warnings } = toolEnvironment(USER, {
      policy: { pass: ['MY_COPY'], set: { TOKEN: `x${KEY}` } },
      secrets: [KEY],
    });
    expect(environment).not.toHaveProperty('MY_COPY');
    expect(environment).not.toHaveProperty('TOKEN');
    expect(warnings).toEqual([
      expect.stringContaining('sandbox.env.set.TOKEN is not given to tools: its value holds a secret'),
      expect.stringContaining('sandbox.env.pass names MY_COPY, which is not given to tools'),
    ]);
  });

  it('finds a secret of 8 characters or more anywhere in a value, a shorter one only as the whole value', () => {
    expect(holdsSecret(`a ${KEY} b`, [KEY])).toBe(true);
    expect(holdsSecret('pw', ['pw'])).toBe(true);
    expect(holdsSecret('/home/pw/x', ['pw'])).toBe(false);
    expect(holdsSecret('anything', [''])).toBe(false);
  });
});

describe('userEnvironment (hooks and generators)', () => {
  it('keeps the user environment, less the credentials, DELTA_QUEUE and what holds a secret', () => {
    const environment = userEnvironment(USER, { secrets: [KEY], engine: ENGINE });
    expect(environment).toMatchObject({ GITHUB_TOKEN: 'ghp_github_token_0123', SHELL: '/bin/zsh', UID: '0', ...ENGINE });
    for (const name of ['DELTA_QUEUE', 'DELTA_API_KEY', 'MY_COPY']) expect(environment).not.toHaveProperty(name);
  });
});
