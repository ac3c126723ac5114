/** The body the OpenAI API sends with every error status. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** The error `type` the real API uses for a status, when the script does not name one. */
export function errorTypeForStatus(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function openAiError(
  message: string,
  options: { type?: string; param?: string | null; code?: string | null } = {},
): OpenAiErrorBody {
  return {
    error: {
      message,
      type: options.type ?? 'invalid_request_error',
      param: options.param ?? null,
      code: options.code ?? null,
    },
  };
}
