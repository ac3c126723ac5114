/** A problem found while reading an `exec:` or `shell:` template; the caller adds the field path. */
export class TemplateProblem extends Error {
  readonly expected: string | undefined;
  readonly found: string | undefined;
  readonly hint: string | undefined;

  constructor(message: string, details: { expected?: string; found?: string; hint?: string } = {}) {
    super(message);
    this.name = 'TemplateProblem';
    this.expected = details.expected;
    this.found = details.found;
    this.hint = details.hint;
  }
}
