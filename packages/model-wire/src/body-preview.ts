/** The first bytes of a body as text a person can read in one line: at most `limit` bytes, control characters escaped. */
export function bodyPreview(bytes: Uint8Array, limit = 200): string {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, limit)).toString('utf8');
  // A cut in the middle of a character leaves U+FFFD at the end, which is harmless here.
  const text = JSON.stringify(head).slice(1, -1);
  return bytes.byteLength > limit ? `${text}...` : text;
}

/** "text/html; charset=utf-8" -> "text/html"; a missing header is said so. */
export function mediaType(contentType: string | undefined): string {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type ? type : 'no content type';
}
