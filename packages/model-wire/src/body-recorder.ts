/**
 * Hands the exact bytes of each request to the caller's audit record (the engine's io/invocations) from
 * inside the openai SDK's fetch, just before they are sent. A record that cannot be written (a full disk) must not
 * pass for the endpoint's fault: the SDK would wrap the error as a connection error ("Cannot reach the
 * model endpoint") and retry it. The client's caller rethrows it as it is instead (`rethrowFailure`).
 */
export class BodyRecorder {
  private onBody: ((body: string | Uint8Array) => void) | undefined;
  private failure: { error: unknown } | undefined;

  /** For one `complete` call. */
  start(onBody: ((body: string | Uint8Array) => void) | undefined): void {
    this.onBody = onBody;
    this.failure = undefined;
  }

  stop(): void {
    this.onBody = undefined;
  }

  /** In the fetch: records a text or binary body; throws (and keeps) the record's own error. */
  record(body: unknown): void {
    if (!this.onBody || !(typeof body === 'string' || body instanceof Uint8Array)) return;
    try {
      this.onBody(body);
    } catch (error) {
      this.failure = { error };
      throw error;
    }
  }

  /** Throws the record's error, if writing the record is what failed the request. */
  rethrowFailure(): void {
    if (this.failure) throw this.failure.error;
  }
}
