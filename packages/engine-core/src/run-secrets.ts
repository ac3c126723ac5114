import type { LoadedAgent } from './load-agent.js';
import { redactable } from './redact-secret.js';

/** Names whose values are secrets: `GITHUB_TOKEN`, `CLIENT_SECRET`, `X-Api-Key`, `Authorization`... */
const secretName = /(API[_-]?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|ACCESS[_-]KEY|PRIVATE[_-]KEY|AUTHORIZATION)$/i;

/**
 * What counts as a secret of a run, to be redacted wherever it could land (docs/models.md): the model key,
 * and the credentials agent.yaml gives its MCP servers: the value of each `headers:` entry of a url server
 * and each `env:` entry of a stdio server whose name says it is one (`Authorization` with the token after
 * its scheme too, `X-Api-Key`, `*_TOKEN`, `*_API_KEY`, `*_SECRET`, `*_PASSWORD`...). A server may
 * quote them back in a result or an error, as an endpoint may the key. Values under 8 characters are not
 * redacted (redactable).
 */
export function runSecrets(apiKey: string | undefined, agent: Pick<LoadedAgent, 'mcpServers'>): string[] {
  const found: string[] = apiKey === undefined ? [] : [apiKey];
  for (const { config } of agent.mcpServers) {
    for (const [name, value] of Object.entries(config.headers ?? {})) {
      if (!secretName.test(name)) continue;
      found.push(value);
      const token = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1];
      if (token !== undefined) found.push(token);
    }
    for (const [name, value] of Object.entries(config.env ?? {})) if (secretName.test(name)) found.push(value);
  }
  return redactable(found);
}
