/**
 * What `delta run` and `delta continue` print on stdout when the run stops: without `--format`, the
 * `answer` for a person; `--format text` v1.10's summary block with it; `json` one object; `raw` the
 * answer's bytes alone.
 */
export type OutputFormat = 'answer' | 'text' | 'json' | 'raw';
