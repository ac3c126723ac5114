/** The URL a server's chat completions are asked at: `<baseUrl>/chat/completions`. */
export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
}
