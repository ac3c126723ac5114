import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '@delta/errors';
import { ConfigFileError, formatProblem } from '@delta/yaml-config';
import { loadHooksConfig } from './index.js';
import { parseHooksConfig } from './load-hooks-config.js';

let agentHome: string;
beforeEach(() => {
  agentHome = mkdtempSync(join(tmpdir(), 'delta-hooks-config-'));
});
afterEach(() => rmSync(agentHome, { recursive: true, force: true }));

function writeHooks(text: string): string {
  const file = join(agentHome, 'hooks.yaml');
  writeFileSync(file, text);
  return file;
}

function errorOf(run: () => unknown): ConfigFileError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigFileError;
  }
  throw new Error('expected an error');
}

describe('loadHooksConfig with hooks.yaml', () => {
  it('reads all eight hooks, keeping timeout_ms when given', () => {
    const names = [
      'pre_llm_request',
      'post_llm_response',
      'pre_tool_execution',
      'post_tool_execution',
      'on_error',
      'on_run_end',
      'on_iteration_start',
      'on_iteration_end',
    ];
    const file = writeHooks(
      names
        .map((name) => `${name}:\n  command: ["\${AGENT_HOME}/hooks/${name}.sh", "\${CWD}"]\n`)
        .join('')
        .replace('on_run_end:\n', 'on_run_end:\n  timeout_ms: 5000\n'),
    );
    const loaded = loadHooksConfig({ agentHome });
    expect(loaded.file).toBe(file);
    expect(loaded.warnings).toEqual([]);
    expect(Object.keys(loaded.hooks).sort()).toEqual([...names].sort());
    expect(loaded.hooks.pre_llm_request).toEqual({ command: ['${AGENT_HOME}/hooks/pre_llm_request.sh', '${CWD}'] });
    expect(loaded.hooks.on_run_end).toEqual({ command: ['${AGENT_HOME}/hooks/on_run_end.sh', '${CWD}'], timeout_ms: 5000 });
  });

  it('returns no hooks and no file when there is neither hooks.yaml nor a legacy block', () => {
    expect(loadHooksConfig({ agentHome })).toEqual({ hooks: {}, warnings: [] });
  });

  it('accepts an empty hooks.yaml', () => {
    writeHooks('# no hooks yet\n');
    expect(loadHooksConfig({ agentHome }).hooks).toEqual({});
  });

  it('maps the v1.1 short names with a deprecation warning naming the file, the old and the new name', () => {
    const file = writeHooks(
      'pre_llm_req:\n  command: [a]\npost_llm_resp:\n  command: [b]\npre_tool_exec:\n  command: [c]\npost_tool_exec:\n  command: [d]\n',
    );
    const loaded = loadHooksConfig({ agentHome });
    expect(loaded.hooks).toEqual({
      pre_llm_request: { command: ['a'] },
      post_llm_response: { command: ['b'] },
      pre_tool_execution: { command: ['c'] },
      post_tool_execution: { command: ['d'] },
    });
    expect(loaded.warnings).toHaveLength(4);
    const first = loaded.warnings[0]!;
    expect(first).toMatchObject({ file, line: 1, column: 1, field: 'pre_llm_req' });
    expect(first.message).toContain('[DEPRECATION WARNING]');
    expect(first.message).toContain(file);
    expect(first.message).toContain('"pre_llm_req"');
    expect(first.message).toContain('pre_llm_request');
    expect(loaded.warnings.map((warning) => warning.line)).toEqual([1, 3, 5, 7]);
  });

  it('refuses a short name and its long name together, naming both', () => {
    writeHooks('pre_llm_request:\n  command: [a]\npre_llm_req:\n  command: [b]\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(error.message).toContain('pre_llm_req');
    expect(error.message).toMatch(/"pre_llm_req" and "pre_llm_request"/);
    expect(error.problems[0]).toMatchObject({ line: 3, column: 1, field: 'pre_llm_req' });
  });

  it('refuses an unknown hook name, with its line and the list of hooks: a misspelled hook must never fail open', () => {
    const file = writeHooks('pre_llm_request:\n  command: [a]\non_tool_start:\n  command: [b]\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.problems).toHaveLength(1);
    expect(formatProblem(error.problems[0]!)).toBe(
      `${file}:3:1 on_tool_start: unknown hook "on_tool_start" (the hooks are on_iteration_start, pre_llm_request, post_llm_response, pre_tool_execution, post_tool_execution, on_iteration_end, on_error, on_run_end)`,
    );
    expect(error.hint).toMatch(/refused rather than ignored/);
  });

  it('refuses a misspelled gate, naming the key and the hook it was meant to be', () => {
    const file = writeHooks('pre_tool_exection:\n  command: [gate.sh]\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(formatProblem(error.problems[0]!)).toBe(
      `${file}:1:1 pre_tool_exection: unknown hook "pre_tool_exection": did you mean "pre_tool_execution"?`,
    );
    expect(error.hint).toMatch(/^Rename pre_tool_exection to pre_tool_execution\./);
  });

  it('suggests the current name when a typo is closest to a v1.1 name', () => {
    writeHooks('pre_llm_rq:\n  command: [a]\n');
    expect(errorOf(() => loadHooksConfig({ agentHome })).message).toContain('unknown hook "pre_llm_rq": did you mean "pre_llm_request"?');
  });

  it('refuses a key inside a hook that is close to a known one', () => {
    writeHooks('on_error:\n  command: [a]\n  timout_ms: 5\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(error.message).toMatch(/hooks\.yaml:3:3 on_error\.timout_ms: unknown key "timout_ms": did you mean "timeout_ms"\?/);
  });

  it('warns about unknown keys inside a hook without calling them hooks', () => {
    writeHooks('on_error:\n  command: [a]\n  timeout: 5\n');
    const loaded = loadHooksConfig({ agentHome });
    expect(loaded.warnings[0]).toMatchObject({ field: 'on_error.timeout', line: 3, column: 3 });
    expect(loaded.warnings[0]!.message).toMatch(/unknown key "timeout"/);
  });

  it('reports a bad hook with file, line, column, field, expected and found', () => {
    const file = writeHooks('on_error:\n  command: notify.sh\non_run_end:\n  command: []\n  timeout_ms: -5\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(error.file).toBe(file);
    const lines = error.problems.map(formatProblem);
    expect(lines[0]).toBe(`${file}:2:12 on_error.command: expected array, received string; found the string "notify.sh"`);
    expect(lines.some((line) => line.startsWith(`${file}:4:12 on_run_end.command:`))).toBe(true);
    expect(lines.some((line) => line.startsWith(`${file}:5:15 on_run_end.timeout_ms:`))).toBe(true);
    expect(error.hint).toContain('command: ["program"');
  });

  it('reports a missing command at its hook', () => {
    writeHooks('on_error:\n  timeout_ms: 10\n');
    expect(() => loadHooksConfig({ agentHome })).toThrow(/hooks\.yaml:2:3 on_error\.command: is required but missing/);
  });

  it('reports YAML syntax errors with their line', () => {
    writeHooks('on_error:\n  command: [a\n');
    expect(() => loadHooksConfig({ agentHome })).toThrow(/hooks\.yaml:\d+:\d+ \(yaml syntax\)/);
  });

  it('accepts ${AGENT_HOME} and ${CWD} but refuses any other variable, naming the field and its line', () => {
    const file = writeHooks('on_error:\n  command: ["${AGENT_HOME}/x", "${CWD}", "${HOME}/y"]\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(error.problems).toHaveLength(1);
    expect(formatProblem(error.problems[0]!)).toBe(
      `${file}:2:42 on_error.command[2]: unknown variable \${HOME} in "\${HOME}/y" (expected \${AGENT_HOME} or \${CWD})`,
    );
    expect(error.field).toBe('on_error.command[2]');
  });

  it('accepts the hooks nested under lifecycle_hooks:, as spec 000 writes the root node', () => {
    writeHooks('lifecycle_hooks:\n  on_error:\n    command: [a]\n');
    expect(loadHooksConfig({ agentHome }).hooks).toEqual({ on_error: { command: ['a'] } });
    writeHooks('lifecycle_hooks:\n  on_error:\n    command: [a]\n  bogus:\n    command: [b]\n');
    const error = errorOf(() => loadHooksConfig({ agentHome }));
    expect(error.problems[0]).toMatchObject({ field: 'lifecycle_hooks.bogus', line: 4 });
    expect(error.problems[0]!.message).toMatch(/unknown hook "bogus"/);
  });
});

describe('loadHooksConfig with a legacy lifecycle_hooks block', () => {
  it('loads it with a deprecation warning that says to move it to hooks.yaml, using agent.yaml line numbers', () => {
    const legacyFile = join(agentHome, 'agent.yaml');
    writeFileSync(
      legacyFile,
      'name: a\nlifecycle_hooks:\n  pre_tool_exec:\n    command: [gate.sh]\n  on_error:\n    command: [x]\n    extra: 1\n',
    );
    const loaded = loadHooksConfig({
      agentHome,
      legacyLifecycleHooks: { pre_tool_exec: { command: ['gate.sh'] }, on_error: { command: ['x'], extra: 1 } },
    });
    expect(loaded.file).toBe(legacyFile);
    expect(loaded.hooks).toEqual({ pre_tool_execution: { command: ['gate.sh'] }, on_error: { command: ['x'] } });
    const messages = loaded.warnings.map((warning) => warning.message);
    expect(messages[0]).toMatch(/^\[DEPRECATION WARNING\] lifecycle_hooks in .*agent\.yaml is deprecated.*move its hooks to .*hooks\.yaml/);
    expect(loaded.warnings.find((warning) => warning.field === 'lifecycle_hooks.pre_tool_exec')).toMatchObject({ line: 3, column: 3 });
    expect(loaded.warnings.find((warning) => warning.field === 'lifecycle_hooks.on_error.extra')?.message).toMatch(/unknown key "extra"/);
  });

  it('refuses an unknown hook name in the legacy block too', () => {
    const legacyFile = join(agentHome, 'agent.yaml');
    writeFileSync(legacyFile, 'name: a\nlifecycle_hooks:\n  on_stop:\n    command: [x]\n');
    expect(() => loadHooksConfig({ agentHome, legacyLifecycleHooks: { on_stop: { command: ['x'] } } })).toThrow(
      /agent\.yaml:3:3 lifecycle_hooks\.on_stop: unknown hook "on_stop"/,
    );
  });

  it('reports errors in the legacy block with agent.yaml line numbers', () => {
    const legacyFile = join(agentHome, 'agent.yaml');
    writeFileSync(legacyFile, 'name: a\nlifecycle_hooks:\n  on_error:\n    command: "x"\n');
    expect(() => loadHooksConfig({ agentHome, legacyLifecycleHooks: { on_error: { command: 'x' } } })).toThrow(
      /agent\.yaml:4:14 lifecycle_hooks\.on_error\.command: expected array/,
    );
  });

  it('validates a legacy value given without its file (config.yaml read elsewhere), naming the field without lines', () => {
    const legacyFile = join(agentHome, 'config.yaml');
    const error = errorOf(() => loadHooksConfig({ agentHome, legacyFile, legacyLifecycleHooks: { on_error: { command: [1] } } }));
    expect(formatProblem(error.problems[0]!)).toBe(
      `${legacyFile} lifecycle_hooks.on_error.command[0]: expected string, received number; found number 1`,
    );
  });

  it('prefers hooks.yaml and warns that the legacy block is ignored', () => {
    writeHooks('on_error:\n  command: [new]\n');
    const loaded = loadHooksConfig({ agentHome, legacyLifecycleHooks: { on_error: { command: ['old'] } } });
    expect(loaded.hooks).toEqual({ on_error: { command: ['new'] } });
    expect(loaded.warnings).toHaveLength(1);
    expect(loaded.warnings[0]!.message).toMatch(
      /\[DEPRECATION WARNING\] lifecycle_hooks in .*agent\.yaml is ignored because .*hooks\.yaml exists/,
    );
  });
});

describe('parseHooksConfig', () => {
  it('maps short names and checks variables on a plain value', () => {
    const loaded = parseHooksConfig({ post_llm_resp: { command: ['${AGENT_HOME}/f.sh'] } }, 'agent.yaml');
    expect(loaded.hooks).toEqual({ post_llm_response: { command: ['${AGENT_HOME}/f.sh'] } });
    expect(loaded.warnings[0]).toEqual({
      file: 'agent.yaml',
      field: 'lifecycle_hooks.post_llm_resp',
      message: expect.stringContaining('[DEPRECATION WARNING]'),
    });
    expect(() => parseHooksConfig({ on_error: { command: ['${RUN_DIR}/x'] } }, 'agent.yaml')).toThrow(
      /agent\.yaml lifecycle_hooks\.on_error\.command\[0\]: unknown variable \$\{RUN_DIR\}/,
    );
  });

  it('refuses a value that is not a mapping', () => {
    expect(() => parseHooksConfig(['on_error'], 'agent.yaml')).toThrow(/lifecycle_hooks: expected object/);
  });
});
