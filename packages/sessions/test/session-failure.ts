import { SessionError } from '../src/index.js';

/** The SessionError a promise rejects with; any other outcome fails the test. */
export async function failure(promise: Promise<unknown>): Promise<SessionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!SessionError.isInstance(error)) throw new Error(`expected a SessionError, got ${String(error)}`);
  return error;
}
