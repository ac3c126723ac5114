/** What stands where a secret was, in every record, log and message of Delta Engine. */
export const REDACTED = '[REDACTED]';

/** Shorter values are not redacted: replacing every "test" in a conversation would hide more than a key. */
export const SHORTEST_REDACTED = 8;

/** Whether `secret` is one that gets redacted (set, and not too short to be told from ordinary words). */
export function isRedactable(secret: string | undefined): secret is string {
  return secret !== undefined && secret.length >= SHORTEST_REDACTED;
}

/** `text` with every occurrence of `secret` replaced by [REDACTED]. */
export function redactText(text: string, secret: string | undefined): string {
  return isRedactable(secret) && text.includes(secret) ? text.split(secret).join(REDACTED) : text;
}

/**
 * A server may quote the key it was sent in its answer (OpenAI's 401 says "Incorrect API key provided:
 * sk-..."). The wire's errors are where a server's words first become the engine's text, and from there
 * they reach stderr, engine.log, metadata.json and the journal: the key is taken out here, once.
 */
export function redactErrorMessage<T>(error: T, secret: string | undefined): T {
  if (!isRedactable(secret) || !(error instanceof Error)) return error;
  if (error.message.includes(secret)) error.message = redactText(error.message, secret);
  // The body an error keeps for the run's records (response.raw) is the server's too.
  const kept = error as Error & { rawBody?: unknown };
  if (typeof kept.rawBody === 'string' && kept.rawBody.includes(secret)) {
    Object.defineProperty(kept, 'rawBody', { value: redactText(kept.rawBody, secret) });
  }
  return error;
}
