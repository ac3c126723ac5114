import type { ServerDialect } from './server-dialect.js';

/** One real server the fake model can imitate, with what its documentation says and what is known to work. */
export interface ServerProfile {
  /** The name `--profile` and `startFakeLlm({ profile })` take, e.g. `vllm`. */
  name: string;
  /** The server's own name, e.g. `vLLM`. */
  title: string;
  /** A base URL known to work (DELTA_BASE_URL). */
  baseUrl: string;
  /** Whether the server wants an API key: `none` (ignored if sent), `optional` (when started with one), `required`. */
  key: 'none' | 'optional' | 'required';
  /** Whether the model's reasoning should go back in later requests (`llm.send_reasoning`). */
  sendReasoning: boolean;
  /** What it does that the official API does not, one line each. */
  quirks: string[];
  /** The documentation (and reports) the dialect follows. */
  sources: string[];
  dialect: ServerDialect;
}

/** A deterministic string of `length` letters and digits from a seed, for ids in a server's style. */
export function idChars(seed: number, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let state = (seed * 2_654_435_761 + 1) >>> 0;
  let text = '';
  for (let index = 0; index < length; index += 1) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    text += alphabet[state % alphabet.length];
  }
  return text;
}
