// The model credentials reach a tool only when its definition opts in, and only that tool.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs } from '@delta/testkit';
import { callTool, toolCallContext } from './tool-call.test-support.js';
import { environmentForTool, modelCredentials } from './model-credentials.js';
import { toolEnvironment } from './tool-environment.js';

afterEach(() => cleanupTempDirs());

const KEY = 'sk-test-credential-1234567890';
const credentials = modelCredentials(KEY, 'http://127.0.0.1:9/v1');

function variables(output: string): Record<string, string> {
  return Object.fromEntries(
    output
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('pass_model_credentials', () => {
  const tools = [
    { name: 'plain', exec: 'env' },
    { name: 'sub_agent', exec: 'env', pass_model_credentials: true },
    { name: 'declined', command: ['env'], pass_model_credentials: false },
  ];

  it('gives the key and base URL to the tool that opts in, and to no other', async () => {
    const context = await toolCallContext(tools, { credentials });
    const plain = variables((await callTool(context, 'plain')).observation);
    const declined = variables((await callTool(context, 'declined')).observation);
    const subAgent = variables((await callTool(context, 'sub_agent')).observation);

    expect(subAgent).toMatchObject({ DELTA_API_KEY: KEY, DELTA_BASE_URL: 'http://127.0.0.1:9/v1', SHARED: 'yes' });
    for (const environment of [plain, declined]) {
      expect(environment.SHARED).toBe('yes');
      expect(environment).not.toHaveProperty('DELTA_API_KEY');
      expect(environment).not.toHaveProperty('DELTA_BASE_URL');
      expect(Object.values(environment).join('\n')).not.toContain(KEY);
    }
  });

  it('does not leak from one call into the next: the shared environment is never changed', async () => {
    const context = await toolCallContext(tools, { credentials });
    await callTool(context, 'sub_agent');
    expect(context.env).not.toHaveProperty('DELTA_API_KEY');
    const after = await callTool(context, 'plain', {}, 'call_after');
    expect(after.observation).not.toContain(KEY);
  });

  it('runs an opted-in tool without credentials when the engine has none to give', async () => {
    const context = await toolCallContext(tools);
    const outcome = await callTool(context, 'sub_agent');
    expect(outcome.status).toBe('SUCCESS');
    expect(variables(outcome.observation)).not.toHaveProperty('DELTA_API_KEY');
  });

  it('keeps the key out of the recorded command line: it travels in the environment only', async () => {
    const context = await toolCallContext(tools, { credentials });
    const outcome = await callTool(context, 'sub_agent');
    const recorded = join(context.paths.toolExecutionsDir, outcome.executionRef!);
    expect(readFileSync(join(recorded, 'command.txt'), 'utf8')).not.toContain(KEY);
  });
});

describe('the environments it is built from', () => {
  it('toolEnvironment drops the key by name and by value; modelCredentials names only what is known', () => {
    const all = { policy: { inherit: 'all' as const } };
    const shared = toolEnvironment(
      { PATH: '/bin', DELTA_API_KEY: KEY, OPENAI_API_KEY: 'other', COPY: `x${KEY}x` },
      { ...all, secrets: [KEY], engine: { DELTA_RUN_ID: 'r' } },
    ).environment;
    expect(shared).toEqual({ PATH: '/bin', DELTA_RUN_ID: 'r' });
    // The endpoint stays with the engine too: a sub-agent started without the opt-in then says what to add.
    const endpoints = { DELTA_BASE_URL: 'http://a/v1', OPENAI_BASE_URL: 'http://b/v1', OPENAI_API_URL: 'http://c/v1' };
    expect(toolEnvironment({ PATH: '/bin', ...endpoints }, all).environment).toEqual({ PATH: '/bin' });
    // A models file's keys, each in a variable of its own name: none reaches a tool.
    const models = { ALPHA_KEY: 'alpha-key-0123', BRAVO_KEY: 'bravo-key-4567', HOME: '/root' };
    expect(toolEnvironment(models, { ...all, secrets: ['alpha-key-0123', 'bravo-key-4567'] }).environment).toEqual({ HOME: '/root' });
    expect(modelCredentials(KEY, undefined)).toEqual({ DELTA_API_KEY: KEY });
    expect(modelCredentials(undefined, undefined)).toEqual({});
    expect(environmentForTool(shared, undefined)).toBe(shared);
    expect(environmentForTool(shared, credentials)).toEqual({ ...shared, ...credentials });
  });
});
