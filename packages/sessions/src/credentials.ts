/** Names that look like secrets: `OPENAI_API_KEY`, `DELTA_API_KEY`, `GITHUB_TOKEN`, `CLIENT_SECRET`, ... */
const credentialName = /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|ACCESS_KEY|PRIVATE_KEY)$/i;
/** Shorter values are too likely to occur by chance (`1`, `true`) to be worth guarding. */
const minimumGuardedLength = 6;

export function looksLikeCredential(name: string): boolean {
  return credentialName.test(name);
}

/** The inherited variables whose names look like credentials, with their values. */
export function inheritedCredentials(env: NodeJS.ProcessEnv): Array<{ name: string; value: string }> {
  return Object.entries(env)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .filter(([name, value]) => looksLikeCredential(name) && value.length >= minimumGuardedLength)
    .map(([name, value]) => ({ name, value }));
}

/** The name of the inherited credential whose value `text` contains, if any. */
export function containedCredential(text: string, credentials: Array<{ name: string; value: string }>): string | undefined {
  return credentials.find((credential) => text.includes(credential.value))?.name;
}
