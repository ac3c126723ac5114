import { REDACTED, isRedactable } from '@delta/model-wire';

export { REDACTED };

/** The secrets to take out: the model key, or every secret of the run (see runSecrets); none is fine. */
export type Secrets = string | readonly string[] | undefined;

/** The secrets that are redacted (8 characters or more), longest first, so that one holding another goes whole. */
export function redactable(secrets: Secrets): string[] {
  const list = typeof secrets === 'string' ? [secrets] : (secrets ?? []);
  return [...new Set(list.filter(isRedactable))].sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by [REDACTED]. */
export function redactSecretText(text: string, secrets: Secrets): string {
  let result = text;
  for (const secret of redactable(secrets)) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result;
}

/**
 * Replaces every occurrence of the secrets (the model key first of all) in the strings of a JSON value, so
 * that a key a tool printed (read from a .env file in the workspace, say), or a server or the model echoed,
 * is not written to the journal, response.json or a hook's inputs, nor sent to the model. Returns the value
 * itself when there is nothing to replace (so `!==` says a secret was there). The tool's own stdout.log is
 * left as the tool wrote it. Where else secrets are taken out: docs/models.md, "The key is never written".
 */
export function redactSecret<T>(value: T, secrets: Secrets): T {
  const list = redactable(secrets);
  if (list.length === 0) return value;
  return redact(value, list) as T;
}

function redact(value: unknown, secrets: string[]): unknown {
  if (typeof value === 'string') return secrets.some((secret) => value.includes(secret)) ? redactSecretText(value, secrets) : value;
  if (Array.isArray(value)) {
    const items = value.map((item) => redact(item, secrets));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const redacted = redact(item, secrets);
      if (redacted !== item) changed = true;
      return [key, redacted] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

/** The request's bytes with the secrets replaced, when they hold one (a context file the key was written to). */
export function redactBody(body: Uint8Array, secrets: Secrets): Uint8Array {
  const list = redactable(secrets);
  if (list.length === 0) return body;
  // A view, not a copy (Buffer.from(body) would copy every byte of a large request to search it).
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (!list.some((secret) => bytes.includes(secret))) return body;
  // In the JSON text a key (letters, digits and punctuation such as "-" and "_") is written as it is.
  return Buffer.from(redactSecretText(bytes.toString('utf8'), list), 'utf8');
}
