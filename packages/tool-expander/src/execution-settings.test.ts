import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_TIMEOUT_MS, expandTool, safeExpandTool, toExpandedDefinition, toFunctionTool } from './index.js';

describe('timeout_ms', () => {
  it('defaults to two minutes in every syntax', () => {
    expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(120_000);
    for (const definition of [
      { name: 'a', exec: 'ls' },
      { name: 'b', shell: 'ls | wc -l' },
      { name: 'c', command: ['ls'] },
    ]) {
      expect(expandTool(definition).timeout_ms).toBe(120_000);
    }
  });

  it('is carried as declared, and always shown in the expanded form', () => {
    const tool = expandTool({ name: 'slow', shell: 'sleep 1', timeout_ms: 300_000 });
    expect(tool.timeout_ms).toBe(300_000);
    expect(toExpandedDefinition(tool)).toMatchObject({ timeout_ms: 300_000 });
    expect(toExpandedDefinition(expandTool({ name: 'quick', exec: 'true' }))).toMatchObject({ timeout_ms: 120_000 });
  });

  it.each([
    [0, "'timeout_ms' is too small.", 'number 0'],
    [-5, "'timeout_ms' is too small.", 'number -5'],
    [1.5, "'timeout_ms' has the wrong type.", 'number 1.5'],
    ['60000', "'timeout_ms' has the wrong type.", '"60000"'],
    [2_147_483_648, "'timeout_ms' has the wrong value.", 'number 2147483648'],
  ])('refuses %j with a located message and a hint', (value, message, found) => {
    const result = safeExpandTool({ name: 't', exec: 'ls', timeout_ms: value }, { file: 'agent.yaml', path: 'tools[3]' });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.message).toBe(
      `agent.yaml: tools[3].timeout_ms: ${message} Expected a whole number of milliseconds from 1 to 2147483647, such as 120000, found ${found}.`,
    );
    expect(result.error.field).toBe('tools[3].timeout_ms');
    expect(result.error.hint).toContain('timeout_ms: 300000');
  });
});

describe('pass_model_credentials', () => {
  it('is false unless the definition says true', () => {
    expect(expandTool({ name: 'a', exec: 'ls' }).pass_model_credentials).toBe(false);
    expect(expandTool({ name: 'a', exec: 'ls', pass_model_credentials: false }).pass_model_credentials).toBe(false);
    expect(expandTool({ name: 'a', command: ['delta', 'run'], pass_model_credentials: true }).pass_model_credentials).toBe(true);
  });

  it('shows in the expanded form only when it is on, and never reaches the model', () => {
    const on = expandTool({ name: 'sub_agent', exec: 'delta run --agent ${AGENT_HOME}/sub -m ${task}', pass_model_credentials: true });
    expect(toExpandedDefinition(on)).toMatchObject({ pass_model_credentials: true });
    expect(toExpandedDefinition(expandTool({ name: 'a', exec: 'ls' }))).not.toHaveProperty('pass_model_credentials');
    expect(JSON.stringify(toFunctionTool(on))).not.toContain('credentials');
  });

  it('refuses anything but true or false', () => {
    const result = safeExpandTool({ name: 'a', exec: 'ls', pass_model_credentials: 'yes' }, { path: 'tools[0]' });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error.field).toBe('tools[0].pass_model_credentials');
    expect(result.error.message).toContain('Expected true or false, found "yes"');
  });
});

describe('max_output_bytes', () => {
  it('is carried and shown only when declared, in every syntax', () => {
    for (const definition of [
      { name: 'a', exec: 'ls', max_output_bytes: 4000 },
      { name: 'b', shell: 'ls | wc -l', max_output_bytes: 4000 },
      { name: 'c', command: ['ls'], max_output_bytes: 4000 },
    ]) {
      const tool = expandTool(definition);
      expect(tool.max_output_bytes).toBe(4000);
      expect(toExpandedDefinition(tool)).toMatchObject({ max_output_bytes: 4000 });
    }
    const plain = expandTool({ name: 'd', exec: 'ls' });
    expect(plain).not.toHaveProperty('max_output_bytes');
    expect(toExpandedDefinition(plain)).not.toHaveProperty('max_output_bytes');
  });
});
