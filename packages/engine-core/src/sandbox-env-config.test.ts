// agent.yaml's sandbox.env is checked like the rest of agent.yaml: a mistake there names the file, the
// line, the field and the fix, and a name no tool can be given is refused before any run.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, createTempAgent } from '@delta/testkit';
import { formatError } from '@delta/errors';
import { loadAgent } from './load-agent.js';
import { configurationError } from './load-agent.test-support.js';

afterAll(cleanupTempDirs);

const agentWith = (env: string) => createTempAgent({ agentYaml: `name: a\nllm:\n  model: m\nsandbox:\n  env:\n${env}` });

describe('sandbox.env in agent.yaml', () => {
  it('loads inherit, pass (names and patterns) and set', async () => {
    const home = await agentWith('    inherit: none\n    pass: [GITHUB_TOKEN, "PYTHON*", "LC_?"]\n    set: {DATA: "${AGENT_HOME}/data"}\n');
    const agent = loadAgent(home);
    expect(agent.config.sandbox?.env).toEqual({
      inherit: 'none',
      pass: ['GITHUB_TOKEN', 'PYTHON*', 'LC_?'],
      set: { DATA: '${AGENT_HOME}/data' },
    });
    expect(agent.warnings).toEqual([]);
  });

  it('refuses a key close to a known one (pas:) with the suggestion, and warns about an unknown one', async () => {
    const typo = configurationError(await agentWith('    pas: [GITHUB_TOKEN]\n'));
    expect(typo.message).toContain('sandbox.env.pas: unknown key "pas": did you mean "pass"?');
    expect(typo.hint).toContain('Rename sandbox.env.pas to sandbox.env.pass.');
    const home = await agentWith('    colour: red\n');
    expect(loadAgent(home).warnings).toEqual([
      expect.objectContaining({
        file: join(home, 'agent.yaml'),
        line: 6,
        field: 'sandbox.env.colour',
        message: expect.stringContaining('"colour"'),
      }),
    ]);
  });

  it('refuses what is not a name, a name bash keeps for itself, and an inherit it does not know, naming file, line and field', async () => {
    const home = await agentWith('    inherit: everything\n    pass: ["a.b", UID, "BASH_ENV"]\n    set: {"x-y": "1", EUID: "0"}\n');
    const error = configurationError(home);
    const text = formatError(error);
    const file = join(home, 'agent.yaml');
    expect(error.message).toContain(`${file}:6:14 sandbox.env.inherit:`);
    expect(error.message).toContain(`${file}:7:12 sandbox.env.pass[0]: "a.b" is not a variable name or a pattern of one`);
    expect(error.message).toContain('sandbox.env.pass[1]: "UID" cannot be passed: bash keeps it for itself');
    expect(error.message).toContain('sandbox.env.pass[2]: "BASH_ENV" cannot be passed: bash keeps it for itself');
    expect(error.message).toContain('sandbox.env.set: "x-y" cannot be passed: it is not a name a shell can export');
    expect(error.message).toContain('sandbox.env.set: "EUID" cannot be passed: bash keeps it for itself');
    // The fix: how sandbox.env is written.
    expect(text).toContain('pass: [GITHUB_TOKEN, "PYTHON*"]');
  });

  it('refuses to pass or set a model credential, DELTA_QUEUE or a run variable, saying why, and never quotes the value set', async () => {
    const home = await agentWith(
      '    pass: [DELTA_QUEUE, OPENAI_API_KEY]\n    set: {DELTA_API_KEY: sk-secret-value-0123456789, DELTA_RUN_ID: mine}\n',
    );
    const error = configurationError(home);
    expect(error.message).toContain(
      'sandbox.env.pass[0]: DELTA_QUEUE holds the queue address and its password, which no tool is ever given',
    );
    expect(error.message).toContain('sandbox.env.pass[1]: OPENAI_API_KEY is a model credential');
    expect(error.message).toContain('pass_model_credentials: true');
    expect(error.message).toContain('sandbox.env.set: DELTA_API_KEY is a model credential');
    expect(error.message).toContain('DELTA_RUN_ID is set by the engine for every run');
    expect(formatError(error)).not.toContain('sk-secret-value');
  });

  it('refuses a ${...} in a set: value other than ${AGENT_HOME} and ${CWD}', async () => {
    const error = configurationError(await agentWith('    set: {DATA: "${HOME}/data"}\n'));
    expect(error.message).toContain('sandbox.env.set.DATA: ${HOME} is not a variable the engine fills in here');
  });
});
