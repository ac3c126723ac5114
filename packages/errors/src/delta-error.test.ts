import { describe, expect, it } from 'vitest';
import { createDeltaError } from './delta-error.js';
import { isDeltaErrorCode } from './error-codes.js';
import { ConfigurationError, DeltaError, errorKindOf, exitCodeOf, formatError, ModelBehaviourError, SystemError } from './index.js';

describe('DeltaError', () => {
  it('keeps code, kind, file, field, hint and cause', () => {
    const cause = new Error('root');
    const error = new ConfigurationError('bad value', {
      code: 'CONFIG_INVALID',
      file: 'agent.yaml',
      field: 'llm.model',
      hint: 'set llm.model',
      cause,
    });
    expect(error.name).toBe('ConfigurationError');
    expect(error.kind).toBe('configuration');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.file).toBe('agent.yaml');
    expect(error.field).toBe('llm.model');
    expect(error.cause).toBe(cause);
    expect(formatError(error)).toBe('bad value\nHint: set llm.model');
  });

  it('recognises an error from another copy of the package by its marker', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('delta.error')]: true });
    expect(DeltaError.isInstance(foreign)).toBe(true);
    expect(DeltaError.isInstance(new Error('plain'))).toBe(false);
    expect(DeltaError.isInstance(new SystemError('s', { code: 'INTERNAL' }))).toBe(true);
    expect(formatError('text')).toBe('text');
  });

  it('takes its kind from the code, so a subclass of the base (sessions) gets the right one', () => {
    class ToolError extends DeltaError {}
    expect(new ToolError('x', { code: 'INVALID_ARGUMENT' }).kind).toBe('configuration');
    expect(new ToolError('x', { code: 'SESSION_NOT_FOUND' }).kind).toBe('model');
    expect(new ToolError('x', { code: 'SESSION_DEAD' }).kind).toBe('system');
    expect(new ModelBehaviourError('x', { code: 'TOOL_ARGUMENTS_INVALID' }).kind).toBe('model');
    expect(errorKindOf('NOT_A_CODE')).toBe('system');
    expect(isDeltaErrorCode('RUN_LOCKED')).toBe(true);
    expect(isDeltaErrorCode('toString')).toBe(false);
  });

  it('builds the subclass its code belongs to', () => {
    expect(createDeltaError('x', { code: 'USAGE' })).toBeInstanceOf(ConfigurationError);
    expect(createDeltaError('x', { code: 'EXEC_TIMEOUT' })).toBeInstanceOf(ModelBehaviourError);
    expect(createDeltaError('x', { code: 'JSON_INVALID', file: '/f.json' })).toMatchObject({ name: 'SystemError', file: '/f.json' });
  });

  it('maps every thrown value to the exit code it leads to: 2 for configuration, 1 for the rest', () => {
    expect(exitCodeOf(new ConfigurationError('x', { code: 'API_KEY_MISSING' }))).toBe(2);
    expect(exitCodeOf(new SystemError('x', { code: 'MODEL_UNREACHABLE' }))).toBe(1);
    expect(exitCodeOf(new ModelBehaviourError('x', { code: 'TOOL_ARGUMENTS_INVALID' }))).toBe(1);
    expect(exitCodeOf(new Error('plain'))).toBe(1);
    expect(exitCodeOf('thrown text')).toBe(1);
  });
});
