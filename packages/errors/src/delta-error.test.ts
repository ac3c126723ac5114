import { describe, expect, it } from 'vitest';
import { ConfigurationError, DeltaError, SystemError, formatError } from './index.js';

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
    expect(DeltaError.isInstance(new SystemError('s', { code: 'S' }))).toBe(true);
    expect(formatError('text')).toBe('text');
  });
});
