import { formatFieldPath } from '@delta/errors';
import { describeValue } from '@delta/yaml-config';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import type { TaskLimits, TaskVerifier } from './dataset.js';

/** One thing wrong with a Harbor task: the file, the field in it, what is wrong and the fix. */
export interface HarborTaskProblem {
  file: string;
  line?: number;
  field?: string;
  problem: string;
  hint: string;
}

const seconds = z.number({ error: 'a number of seconds' }).positive('a number of seconds above 0');
const mebibytes = z.number({ error: 'a whole number of MiB' }).int('a whole number of MiB').positive('a whole number of MiB above 0');

/** The parts of task.toml Delta reads; other keys (Harbor's `version`, `build_timeout_sec`, ...) are left alone. */
const HarborTaskToml = z.looseObject({
  metadata: z.record(z.string(), z.unknown(), { error: 'a table' }).optional(),
  agent: z.looseObject({ timeout_sec: seconds.optional() }, { error: 'a table' }).optional(),
  verifier: z
    .looseObject(
      {
        timeout_sec: seconds.optional(),
        env: z.record(z.string(), z.string({ error: 'a string' }), { error: 'a table of strings' }).optional(),
      },
      { error: 'a table' },
    )
    .optional(),
  environment: z
    .looseObject(
      {
        docker_image: z.string({ error: 'an image reference (a string)' }).trim().min(1, 'an image reference').optional(),
        cpus: z.number({ error: 'a number of CPUs' }).positive('a number of CPUs above 0').optional(),
        memory_mb: mebibytes.optional(),
        storage_mb: mebibytes.optional(),
      },
      { error: 'a table' },
    )
    .optional(),
});

/** What a task.toml gives a task. */
export interface HarborTaskSettings {
  metadata?: Record<string, unknown>;
  timeout_sec?: number;
  verifier?: TaskVerifier;
  limits?: TaskLimits;
  docker_image?: string;
}

const MIB = 1024 * 1024;
const TOML_HINT =
  'task.toml is TOML: [metadata] (any keys), [agent] timeout_sec = 600.0, [verifier] timeout_sec = 600.0 and env = { NAME = "value" }, [environment] docker_image = "host/name:tag", cpus = 1, memory_mb = 2048, storage_mb = 10240.';

/** The value at `path` in `data`, for saying what was found. */
function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const part of path)
    current = current !== null && typeof current === 'object' ? (current as Record<PropertyKey, unknown>)[part] : undefined;
  return current;
}

/**
 * Reads a task.toml's text: its settings, and every problem with it (its TOML syntax, or each field of the
 * wrong type). Settings are undefined only when the text is not TOML; with problems, they hold only its image.
 */
export function parseHarborTaskToml(text: string, file: string): { settings?: HarborTaskSettings; problems: HarborTaskProblem[] } {
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
    const quoted = text.split('\n')[error.line - 1] ?? '';
    return {
      problems: [
        {
          file,
          line: error.line,
          problem: `is not TOML: ${reason} at line ${error.line}, column ${error.column}: ${JSON.stringify(quoted)}.`,
          hint: `Fix the TOML syntax on that line. ${TOML_HINT}`,
        },
      ],
    };
  }
  const parsed = HarborTaskToml.safeParse(data);
  if (!parsed.success) {
    // Still say what it gives of the image, so that a task missing one is told so in the same round.
    const image = valueAt(data, ['environment', 'docker_image']);
    return {
      settings: typeof image === 'string' && image.trim() !== '' ? { docker_image: image.trim() } : {},
      problems: parsed.error.issues.map((issue) => ({
        file,
        field: formatFieldPath(issue.path),
        problem: `expected ${issue.message}, found ${describeValue(valueAt(data, issue.path))}.`,
        hint: TOML_HINT,
      })),
    };
  }
  const { metadata, agent, verifier, environment } = parsed.data;
  const limits: TaskLimits = {
    ...(environment?.cpus === undefined ? {} : { cpus: environment.cpus }),
    ...(environment?.memory_mb === undefined ? {} : { memory: environment.memory_mb * MIB }),
    ...(environment?.storage_mb === undefined ? {} : { layer: environment.storage_mb * MIB }),
  };
  const verifierSettings: TaskVerifier = {
    ...(verifier?.timeout_sec === undefined ? {} : { timeout_sec: verifier.timeout_sec }),
    ...(verifier?.env === undefined ? {} : { env: verifier.env }),
  };
  return {
    settings: {
      ...(metadata === undefined ? {} : { metadata }),
      ...(agent?.timeout_sec === undefined ? {} : { timeout_sec: agent.timeout_sec }),
      ...(Object.keys(verifierSettings).length === 0 ? {} : { verifier: verifierSettings }),
      ...(Object.keys(limits).length === 0 ? {} : { limits }),
      ...(environment?.docker_image === undefined ? {} : { docker_image: environment.docker_image }),
    },
    problems: [],
  };
}
