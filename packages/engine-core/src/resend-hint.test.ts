import { DeltaError } from '@delta/errors';
import { ModelWireError } from '@delta/model-wire';
import { describe, expect, it } from 'vitest';
import { withResendHint } from './resend-hint.js';

describe('withResendHint', () => {
  it('says how to resend on a copy of a transient wire error, leaving the error itself as it was', () => {
    const error = new ModelWireError('The model endpoint answered HTTP 503: overloaded', {
      code: 'MODEL_ERROR',
      transient: true,
      status: 503,
      hint: 'The engine retries it.',
      rawBody: 'overloaded',
    });
    const hinted = withResendHint(error) as ModelWireError;
    expect(hinted.hint).toBe('Once it works again, `delta continue -w <workspace>` sends the same request again.');
    expect(error.hint).toBe('The engine retries it.');
    expect(hinted).toBeInstanceOf(ModelWireError);
    expect(DeltaError.isInstance(hinted)).toBe(true);
    expect(hinted).toMatchObject({ message: error.message, code: 'MODEL_ERROR', status: 503, transient: true, stack: error.stack });
    expect(hinted.rawBody).toBe('overloaded');
  });

  it('keeps a hint of its own before the resend hint, and leaves other errors alone', () => {
    const timeout = new ModelWireError('no answer', { code: 'MODEL_TIMEOUT', transient: true, hint: 'Check the server.' });
    expect((withResendHint(timeout) as DeltaError).hint).toBe(
      'Check the server. Once it works again, `delta continue -w <workspace>` sends the same request again.',
    );
    const final = new ModelWireError('redirected', { code: 'MODEL_ERROR', transient: false, hint: 'Set DELTA_BASE_URL.' });
    expect(withResendHint(final)).toBe(final);
    const plain = new Error('not ours');
    expect(withResendHint(plain)).toBe(plain);
  });
});
