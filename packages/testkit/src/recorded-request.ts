/** One HTTP request the fake model received, kept for assertions. */
export interface RecordedRequest {
  method: string;
  /** The path as requested, e.g. `/v1/chat/completions`. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read any field of the body they sent, as they wrote it
  body: any;
  rawBody: string;
  /** The HTTP status the fake model answered with; 0 while the answer is pending. */
  status: number;
}

export interface Recording {
  record: RecordedRequest;
  /** Whether `record.body` has been parsed (or set), so someone may have read or changed it. */
  bodyParsed(): boolean;
}

/**
 * Records a request whose `body` is parsed from `rawBody` when first read: most never are, and a long
 * conversation's parsed body takes many times the memory of its text.
 */
export function recordRequest(request: { method: string; path: string; headers: RecordedRequest['headers']; rawBody: string }): Recording {
  const { rawBody } = request;
  let body: { body: unknown } | undefined;
  const record: RecordedRequest = {
    method: request.method,
    path: request.path,
    headers: request.headers,
    get body() {
      body ??= { body: parseBody(rawBody) };
      return body.body;
    },
    set body(value) {
      body = { body: value };
    },
    rawBody,
    status: 0,
  };
  return { record, bodyParsed: () => body !== undefined };
}

function parseBody(text: string): unknown {
  // Not safeParseJson: a body that is not JSON is recorded as raw bytes, not an error.
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
