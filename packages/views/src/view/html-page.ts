import { randomBytes } from 'node:crypto';
import { escapeHtml as esc } from './escape-html.js';

/** A self-contained page: no network at all, and only its own inline script runs, even if something slipped past escaping. */
export function htmlPage(page: { title: string; style: string; body: string; script: string }): string {
  const nonce = randomBytes(16).toString('base64');
  const policy = `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src data:`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(policy)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(page.title)}</title>
<style>${page.style}</style>
</head>
<body>
${page.body}
<script nonce="${esc(nonce)}">${page.script}</script>
</body>
</html>
`;
}
