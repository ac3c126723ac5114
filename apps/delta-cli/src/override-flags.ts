import type { ConfigOverrides } from '@delta/engine';
import { usageError } from './usage-error.js';

/** The flags of `delta run`, `delta continue` and `delta fork` that change a run's configuration. */
export interface OverrideFlags {
  model?: string | number;
  baseUrl?: string;
  set?: string | number | readonly (string | number)[];
}

/** `--model` and each `--set` (cac gives one value as a string, several as a list). */
export function configOverrides(flags: OverrideFlags): ConfigOverrides {
  const set = flags.set === undefined ? [] : (Array.isArray(flags.set) ? flags.set : [flags.set]).map(String);
  return {
    ...(flags.model === undefined ? {} : { model: modelName(flags.model) }),
    ...(set.length > 0 ? { set } : {}),
  };
}

function modelName(value: string | number | boolean): string {
  if (value === true || String(value).trim() === '') throw usageError('--model needs a model name.', 'For example: --model gpt-4o-mini');
  return String(value);
}

/** `--base-url`: an http(s) URL, checked here so that a typo is not found only when the model is called. */
export function baseUrlFlag(flags: { baseUrl?: string }): { baseUrl?: string } {
  if (flags.baseUrl === undefined) return {};
  const value = String(flags.baseUrl);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw usageError(`--base-url must be an http or https URL, got "${value}".`, 'For example: --base-url http://localhost:8000/v1');
  }
  return { baseUrl: value };
}
