import type { z } from 'zod';

/** The parts of a zod 4 schema definition this walk reads. */
interface Definition {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  left?: z.ZodType;
  right?: z.ZodType;
  values?: unknown[];
  getter?: () => z.ZodType;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

function definition(schema: z.ZodType): Definition {
  return (schema as unknown as { _zod: { def: Definition } })._zod.def;
}

/** The schemas that may describe `data` here, with wrappers (optional, default, ...) taken off. */
function candidates(schema: z.ZodType, data: unknown, depth = 0): z.ZodType[] {
  if (depth > 20) return [];
  const def = definition(schema);
  if (WRAPPERS.has(def.type) && def.innerType) return candidates(def.innerType, data, depth + 1);
  if (def.type === 'lazy' && def.getter) return candidates(def.getter(), data, depth + 1);
  if (def.type === 'pipe' && def.in && def.out) {
    return definition(def.in).type === 'transform' ? candidates(def.out, data, depth + 1) : candidates(def.in, data, depth + 1);
  }
  if (def.type === 'intersection' && def.left && def.right) {
    return [...candidates(def.left, data, depth + 1), ...candidates(def.right, data, depth + 1)];
  }
  if (def.type === 'union' && def.options) {
    const options = def.options.flatMap((option) => candidates(option, data, depth + 1));
    if (def.discriminator === undefined || typeof data !== 'object' || data === null) return options;
    const tag = (data as Record<string, unknown>)[def.discriminator];
    const chosen = options.filter((option) => {
      const field = definition(option).shape?.[def.discriminator as string];
      return field !== undefined && (definition(field).values ?? []).includes(tag);
    });
    return chosen.length > 0 ? chosen : options;
  }
  return [schema];
}

/**
 * The keys a schema allows in the object at `path` of `data` (the data picks the member of a
 * discriminated union), or an empty list when the path leads to no object schema.
 */
export function knownKeysAt(schema: z.ZodType, data: unknown, path: readonly PropertyKey[]): string[] {
  let current = candidates(schema, data);
  let value = data;
  for (const segment of path) {
    value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[segment] : undefined;
    current = current.flatMap((candidate) => {
      const def = definition(candidate);
      const next =
        def.type === 'object'
          ? def.shape?.[String(segment)]
          : def.type === 'array'
            ? def.element
            : def.type === 'record'
              ? def.valueType
              : undefined;
      return next === undefined ? [] : candidates(next, value);
    });
  }
  const keys = current.flatMap((candidate) => Object.keys(definition(candidate).shape ?? {}));
  return [...new Set(keys)];
}
