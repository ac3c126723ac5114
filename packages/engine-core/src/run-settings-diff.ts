import type { EngineStartEvent, JournalEvent } from '@delta/journal';

/** A setting two runs were started with differently: the model, the endpoint, an `llm:` parameter, the budget. */
export interface SettingChange {
  /** `llm.model`, `base_url`, `llm.temperature`, `llm.extra_body.top_k`, `max_iterations`, ... */
  field: string;
  /** Each run's value as JSON text; null where the run has none. */
  a: string | null;
  b: string | null;
}

/** The settings of an ENGINE_START's effective configuration, each at its dot-path, as JSON text. */
function settingsOf(start: EngineStartEvent): Map<string, string> | undefined {
  const config = start.config;
  if (config === undefined) return undefined;
  const settings = new Map<string, string>();
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, item] of Object.entries(value)) walk(item, `${path}.${key}`);
    } else if (value !== undefined) settings.set(path, JSON.stringify(value));
  };
  walk(config.llm, 'llm');
  // The model a run really called: the effective one (`--model` applied), also at the top of ENGINE_START.
  if (start.model !== undefined) settings.set('llm.model', JSON.stringify(start.model));
  for (const key of ['base_url', 'max_iterations'] as const) if (config[key] !== undefined) settings.set(key, JSON.stringify(config[key]));
  return settings;
}

function firstStart(events: readonly JournalEvent[]): EngineStartEvent | undefined {
  return events.find((event): event is EngineStartEvent => event.type === 'ENGINE_START');
}

/**
 * The settings runs A and B were started with (each run's first ENGINE_START: its model, endpoint, every
 * `llm:` parameter and prices, its iteration budget), where they differ, the model and the endpoint first;
 * undefined when either run's engine did not record its configuration.
 */
export function compareRunSettings(a: readonly JournalEvent[], b: readonly JournalEvent[]): SettingChange[] | undefined {
  const startA = firstStart(a);
  const startB = firstStart(b);
  const settingsA = startA && settingsOf(startA);
  const settingsB = startB && settingsOf(startB);
  if (settingsA === undefined || settingsB === undefined) return undefined;
  const fields = [...new Set([...settingsA.keys(), ...settingsB.keys()])];
  const rank = (field: string) => (field === 'llm.model' ? 0 : field === 'base_url' ? 1 : 2);
  return fields
    .filter((field) => settingsA.get(field) !== settingsB.get(field))
    .sort((x, y) => rank(x) - rank(y) || x.localeCompare(y))
    .map((field) => ({ field, a: settingsA.get(field) ?? null, b: settingsB.get(field) ?? null }));
}
