import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import { asDiskFault, ConfigurationError, parseJson } from '@delta/errors';
import { RunOrigin, RunStatus, TokenUsage } from './events.js';
import { readRunRecord, SMALL_RECORD_MAX_BYTES } from './read-record.js';

/**
 * The control-plane schema this package writes, and the ones it reads. A v1.2 metadata.json (spec 000
 * §2.1.4) has the same fields and no schema_version, or "1.2"; it becomes 1.3 when its run is migrated.
 */
export const CONTROL_PLANE_VERSION = '1.3';
export const SUPPORTED_CONTROL_PLANE_VERSIONS: readonly string[] = ['1.3', '1.2'];
const VERSION_WHEN_UNSAID = '1.2';

/** A run's cost so far, estimated from the prices in agent.yaml `llm.pricing` when the model was called. */
export const EstimatedCost = z.looseObject({
  amount: z.number().nonnegative(),
  currency: z.string(),
  input_per_million: z.number().nonnegative(),
  /** Present when agent.yaml gives a price for prompt tokens served from the provider's cache. */
  cached_input_per_million: z.number().nonnegative().optional(),
  output_per_million: z.number().nonnegative(),
});
export type EstimatedCost = z.infer<typeof EstimatedCost>;

/**
 * Where a run's model requests go and where its key came from, fixed when the run starts (never the key):
 * `delta continue` and batch resumes use this endpoint, whatever a `.env` written since says.
 */
export const ModelEndpoint = z.object({
  /** null: the default OpenAI base URL. */
  base_url: z.string().nullable(),
  /** A `.env` file's path, `environment`, or `option` (the caller's baseUrl, `--base-url`). */
  base_url_source: z.string().nullable(),
  /** The variable that held the key (DELTA_API_KEY, OPENAI_API_KEY); null when no key is sent or the caller gave it. */
  api_key_name: z.string().nullable(),
  /** A `.env` file's path, `environment`, or `option`; null when no key is sent. */
  api_key_source: z.string().nullable(),
  /**
   * Variables that hold other model keys (a models file's `api_key_env`): every engine of the run (continue,
   * replay, fork) keeps them from tools and redacts their values. Names only, never a value.
   */
  secret_variables: z.array(z.string()).optional(),
});
export type ModelEndpoint = z.infer<typeof ModelEndpoint>;

/** `metadata.json`: the run's status and summary (spec 000 section 2.1.4). */
export const RunMetadata = z.looseObject({
  schema_version: z.string(),
  run_id: z.string(),
  workspace_id: z.string().nullable(),
  agent_name: z.string(),
  status: RunStatus,
  created_at: z.string(),
  updated_at: z.string(),
  end_time: z.string().nullable(),
  initial_message: z.string(),
  iterations: z.number().int().nonnegative(),
  max_iterations: z.number().int().positive(),
  error: z.string().nullable(),
  /** Why the run stopped where the status alone does not say it (an iteration budget, a signal). */
  status_reason: z.string().nullable().optional(),
  exit_code: z.number().int().nullable().optional(),
  /** The limits the run ran into (sandbox.limits: `memory`, `processes`, `layer`), over all its engines. */
  limits_hit: z.array(z.string()).optional(),
  agent_home: z.string(),
  work_dir: z.string(),
  /** Tokens of every model call of the run, summed. */
  usage: TokenUsage.optional(),
  estimated_cost: EstimatedCost.optional(),
  model_endpoint: ModelEndpoint.optional(),
  /** A replay of another run (`delta replay`): which, and with live or recorded tools. */
  replay_of: RunOrigin.optional(),
  /** A fork of another run (`delta fork`): which, and after which iteration. */
  forked_from: RunOrigin.optional(),
});
export type RunMetadata = z.infer<typeof RunMetadata>;

/** Reads metadata.json's JSON, again for a moment if it is caught while its running totals are rewritten in place. */
function readMetadataJson(file: string): unknown {
  for (let attempt = 1; ; attempt += 1) {
    const bytes = readRunRecord(file, SMALL_RECORD_MAX_BYTES);
    if (bytes === undefined) throw missing(file);
    const text = bytes.toString('utf8');
    try {
      return parseJson(text, file);
    } catch (error) {
      if (attempt >= 5) throw error;
      // A rewrite in place is one small write: it is over long before this.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}

// A run directory this engine cannot read is refused like a configuration mistake (exit 2): the user named it.
function missing(file: string): ConfigurationError {
  return new ConfigurationError(`${file} does not exist`, {
    code: 'METADATA_MISSING',
    file,
    hint: 'Check the run id (`delta list -w <workspace>` lists the runs); a run directory without it was not made by the engine, or was damaged.',
  });
}

export function readMetadata(file: string): RunMetadata {
  if (!existsSync(file)) throw missing(file);
  const value = readMetadataJson(file);
  const unsaid = typeof value === 'object' && value !== null && !Array.isArray(value) && !('schema_version' in value);
  const result = RunMetadata.safeParse(unsaid ? { ...value, schema_version: VERSION_WHEN_UNSAID } : value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigurationError(`${file}: field "${issue?.path.join('.')}" ${issue?.message ?? 'is invalid'}`, {
      code: 'METADATA_INVALID',
      file,
      field: issue?.path.join('.'),
      hint: 'Restore the file from a backup; the journal holds the run itself.',
    });
  }
  if (!SUPPORTED_CONTROL_PLANE_VERSIONS.includes(result.data.schema_version)) {
    throw new ConfigurationError(
      `${file} has schema_version ${result.data.schema_version}; this engine reads ${SUPPORTED_CONTROL_PLANE_VERSIONS.join(' and ')}`,
      { code: 'METADATA_VERSION', file, field: 'schema_version', hint: 'Use the engine version that wrote this run.' },
    );
  }
  return result.data;
}

export function metadataText(metadata: RunMetadata): string {
  return `${JSON.stringify(metadata, null, 2)}\n`;
}

/**
 * Writes metadata.json atomically (a reader never sees half a file): a new file renamed over the old one.
 * A write that fails (a full disk, a read-only file system) leaves the old file as it was, and no
 * temporary file behind; the error names metadata.json and the cause.
 */
export function writeMetadata(file: string, metadata: RunMetadata): void {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, metadataText(metadata));
    renameSync(temporary, file);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The disk refuses this too (read-only): a stray .tmp file is all that is left.
    }
    throw asDiskFault(error, file);
  }
}

/** Reads, changes and writes metadata.json, stamping `updated_at`. */
export function updateMetadata(file: string, change: Partial<RunMetadata>): RunMetadata {
  const next = { ...readMetadata(file), ...change, updated_at: new Date().toISOString() };
  writeMetadata(file, next);
  return next;
}
