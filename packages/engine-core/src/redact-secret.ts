import { REDACTED, SHORTEST_REDACTED } from '@delta/model-wire';

export { REDACTED };

/**
 * Replaces every occurrence of `secret` (the model key) in the strings of a JSON value, so that a key a
 * tool printed (read from a .env file in the workspace, say), or a server or the model echoed, is not
 * written to the journal, response.json or a hook's inputs, nor sent to the model. Returns the value
 * itself when there is nothing to replace (so `!==` says the key was there). The tool's own stdout.log is
 * left as the tool wrote it. Where else the key is taken out: docs/models.md, "The key is never written".
 */
export function redactSecret<T>(value: T, secret: string | undefined): T {
  if (secret === undefined || secret.length < SHORTEST_REDACTED) return value;
  return redact(value, secret) as T;
}

function redact(value: unknown, secret: string): unknown {
  if (typeof value === 'string') return value.includes(secret) ? value.split(secret).join(REDACTED) : value;
  if (Array.isArray(value)) {
    const items = value.map((item) => redact(item, secret));
    return items.some((item, index) => item !== value[index]) ? items : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const redacted = redact(item, secret);
      if (redacted !== item) changed = true;
      return [key, redacted] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

/** The request's bytes with the key replaced, when they hold it (a context file the key was written to). */
export function redactBody(body: Uint8Array, secret: string | undefined): Uint8Array {
  if (secret === undefined || secret.length < SHORTEST_REDACTED) return body;
  // A view, not a copy (Buffer.from(body) would copy every byte of a large request to search it).
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (!bytes.includes(secret)) return body;
  const text = bytes.toString('utf8');
  // In the JSON text a key (letters, digits and punctuation such as "-" and "_") is written as it is.
  return Buffer.from(text.split(secret).join(REDACTED), 'utf8');
}
