/** Retries after the first attempt when nothing else is said. */
export const DEFAULT_MAX_RETRIES = 2;
/** The longest wait a Retry-After may ask for; a longer one fails the request at once. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** Statuses worth retrying: a timeout, a conflict, too many requests, and any server error. */
export function transientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The wait a response asks for: `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const milliseconds = Number.parseFloat(header('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = header('retry-after');
  if (!value) return undefined;
  const seconds = Number(value.trim());
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The backoff before retry number `retry` (0 for the first): 0.5 s doubling up to 8 s, less up to a quarter. */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return Math.round(Math.min(500 * 2 ** retry, 8_000) * (1 - random() * 0.25));
}
