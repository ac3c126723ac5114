import { DeltaError } from '@delta/errors';
import { attemptFailure } from '@delta/model-wire';

const RESEND_HINT = 'Once it works again, `delta continue -w <workspace>` sends the same request again.';

/**
 * A transient failure leaves the conversation as it was: the run FAILED by it resumes with a plain
 * `delta continue`, which sends the same request again. The error's hint says so in place of the wire's
 * "The engine retries it" (its retries are spent). A copy is returned, of the same class; the error is not changed.
 */
export function withResendHint(error: unknown): unknown {
  if (!DeltaError.isInstance(error) || !attemptFailure(error).transient) return error;
  const own = error.hint?.replace(/\s*The engine retries it\.?/, '').trim();
  const copy = Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error)) as DeltaError;
  Object.defineProperty(copy, 'hint', { value: own ? `${own} ${RESEND_HINT}` : RESEND_HINT, enumerable: true });
  return copy;
}
