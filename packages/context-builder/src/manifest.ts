import { isAbsolute, join } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import { ConfigurationError } from '@delta/errors';
import { readYamlConfig, type ConfigProblem } from '@delta/yaml-config';

const OnMissing = z.enum(['error', 'skip']);
/** A token limit: a whole, positive number of (estimated) tokens. */
const TokenLimit = z.number().int().positive();

export const FileSource = z.strictObject({
  type: z.literal('file'),
  id: z.string().min(1).optional(),
  path: z.string().min(1),
  on_missing: OnMissing.default('error'),
  /** Cut the block (with a visible marker) to this many tokens. Without it the file must fit whole. */
  max_tokens: TokenLimit.optional(),
});
export type FileSource = z.infer<typeof FileSource>;

export const ComputedFileSource = z.strictObject({
  type: z.literal('computed_file'),
  id: z.string().min(1).optional(),
  generator: z.strictObject({
    command: z.array(z.string()).min(1),
    timeout_ms: z.number().int().positive().default(30_000),
  }),
  output_path: z.string().min(1),
  on_missing: OnMissing.default('error'),
  max_tokens: TokenLimit.optional(),
});
export type ComputedFileSource = z.infer<typeof ComputedFileSource>;

export const JournalSource = z.strictObject({
  type: z.literal('journal'),
  id: z.string().min(1).optional(),
  max_iterations: z.number().int().positive().optional(),
  /** Drop the oldest iterations until the conversation fits in this many tokens. */
  max_tokens: TokenLimit.optional(),
});
export type JournalSource = z.infer<typeof JournalSource>;

export const ContextSource = z.discriminatedUnion('type', [FileSource, ComputedFileSource, JournalSource]);
export type ContextSource = z.infer<typeof ContextSource>;

/** context.yaml: how the model's context is composed, source by source, in order. */
export const ContextManifest = z.strictObject({
  /** The budget of the whole context: fixed sources first, in order; journal sources get what remains. */
  total_max_tokens: TokenLimit.optional(),
  sources: z.array(ContextSource).min(1),
});
export type ContextManifest = z.infer<typeof ContextManifest>;

export const DEFAULT_CONTEXT_YAML = `sources:
  - type: file
    id: system_prompt
    path: '\${AGENT_HOME}/system_prompt.md'
  - type: file
    id: workspace_guide
    path: '\${CWD}/DELTA.md'
    on_missing: skip
  - type: journal
    id: conversation_history
`;

const ENGINE_VARIABLE = /\$\{([^}]*)\}/g;
const KNOWN_VARIABLES = new Set(['AGENT_HOME', 'CWD']);

function checkVariables(value: string, file: string, field: string): void {
  for (const match of value.matchAll(ENGINE_VARIABLE)) {
    if (!KNOWN_VARIABLES.has(match[1] ?? '')) {
      throw new ConfigurationError(`${file} ${field}: unknown variable \${${match[1]}} in "${value}"`, {
        code: 'CONFIG_INVALID',
        file,
        field,
        hint: 'Only ${AGENT_HOME} (the agent directory) and ${CWD} (the workspace) are substituted in context.yaml.',
      });
    }
  }
}

export interface LoadedContextManifest {
  file: string;
  manifest: ContextManifest;
  warnings: ConfigProblem[];
}

/** Loads `<agentHome>/context.yaml`, which is required (spec 000 section 2.7.7). */
export function loadContextManifest(agentHome: string): LoadedContextManifest {
  const file = join(agentHome, 'context.yaml');
  if (!existsSync(file)) {
    throw new ConfigurationError(
      `context.yaml not found in ${agentHome}\n\n` +
        'Delta Engine requires an explicit context.yaml file to define how\n' +
        "the agent's attention window is constructed.\n\n" +
        `Quick fix - create ${file} with the default content:\n\n${DEFAULT_CONTEXT_YAML}`,
      { code: 'CONTEXT_MISSING', file, hint: 'See docs/context.md for every source type.' },
    );
  }
  const { data, warnings, locate } = readYamlConfig(file, ContextManifest, {
    hintFor: (field) =>
      field.startsWith('sources')
        ? 'Each source is one of: {type: file, path}, {type: computed_file, generator: {command: [...]}, output_path}, {type: journal}.'
        : undefined,
  });
  data.sources.forEach((source, index) => {
    if (source.type === 'file') checkVariables(source.path, file, `sources[${index}].path`);
    if (source.type === 'computed_file') {
      checkVariables(source.output_path, file, `sources[${index}].output_path`);
      for (const [position, part] of source.generator.command.entries())
        checkVariables(part, file, `sources[${index}].generator.command[${position}]`);
    }
  });
  data.sources.forEach((source, index) => {
    if (source.type === 'file') checkFileAtLoad(source, index, agentHome, file, locate);
  });
  warnings.push(...budgetWarnings(data, file, locate), ...duplicateWarnings(data, file, locate));
  return { file, manifest: data, warnings };
}

type Locate = (path: readonly PropertyKey[]) => { line: number; column: number } | undefined;

/**
 * A `file` source whose path does not depend on the workspace is checked now, when the agent loads,
 * rather than failing the run at its first step. Paths with ${CWD} can only be checked in the run.
 */
function checkFileAtLoad(source: FileSource, index: number, agentHome: string, file: string, locate: Locate): void {
  if (source.on_missing === 'skip' || source.path.includes('${CWD}')) return;
  const path = source.path.replaceAll('${AGENT_HOME}', agentHome);
  if (!isAbsolute(path)) return;
  const exists = existsSync(path);
  // bigint: a plain stat of a FIFO or socket misleads Node 20's module resolver (@delta/untrusted-file).
  if (exists && statSync(path, { bigint: true }).isFile()) return;
  const position = locate(['sources', index, 'path']);
  throw new ConfigurationError(
    `${file}${position ? `:${position.line}:${position.column}` : ''} sources[${index}].path: ${path} ${exists ? 'is not a file' : 'does not exist'}`,
    {
      code: 'CONTEXT_SOURCE_MISSING',
      file,
      field: `sources[${index}].path`,
      hint: 'Create the file, fix the path (${AGENT_HOME} is the agent directory, ${CWD} the workspace), or add `on_missing: skip` to the source.',
    },
  );
}

/** Two journal sources send the conversation twice; two sources with one id make the id useless. */
function duplicateWarnings(manifest: ContextManifest, file: string, locate: Locate): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  const journals = manifest.sources.flatMap((source, index) => (source.type === 'journal' ? [index] : []));
  for (const index of journals.slice(1)) {
    warnings.push({
      file,
      ...(locate(['sources', index]) ?? {}),
      field: `sources[${index}]`,
      message: `a second journal source (the first is sources[${journals[0]}]): the model would get the conversation twice (remove one)`,
    });
  }
  const firstWithId = new Map<string, number>();
  manifest.sources.forEach((source, index) => {
    if (source.id === undefined) return;
    const first = firstWithId.get(source.id);
    if (first === undefined) {
      firstWithId.set(source.id, index);
      return;
    }
    warnings.push({
      file,
      ...(locate(['sources', index, 'id']) ?? {}),
      field: `sources[${index}].id`,
      message: `id "${source.id}" is also the id of sources[${first}]: errors and the context trace could not tell them apart (give each source its own id)`,
    });
  });
  return warnings;
}

/** Budgets that can never take effect: worth saying, not fatal. */
function budgetWarnings(manifest: ContextManifest, file: string, locate: Locate): ConfigProblem[] {
  const total = manifest.total_max_tokens;
  if (total === undefined) return [];
  const warnings: ConfigProblem[] = [];
  manifest.sources.forEach((source, index) => {
    if (source.max_tokens === undefined || source.max_tokens <= total) return;
    warnings.push({
      file,
      ...(locate(['sources', index, 'max_tokens']) ?? {}),
      field: `sources[${index}].max_tokens`,
      message: `max_tokens ${source.max_tokens} is more than total_max_tokens ${total}, so the total is the limit (lower max_tokens or raise total_max_tokens)`,
    });
  });
  const fixed = manifest.sources.filter((source) => source.type !== 'journal');
  const claimed = fixed.reduce((sum, source) => sum + Math.min(source.max_tokens ?? 0, total), 0);
  if (claimed >= total && manifest.sources.some((source) => source.type === 'journal')) {
    warnings.push({
      file,
      ...(locate(['total_max_tokens']) ?? {}),
      field: 'total_max_tokens',
      message: `the max_tokens of the file and computed_file sources add up to ${claimed}, which can leave nothing of total_max_tokens ${total} for the journal (raise total_max_tokens or lower those max_tokens)`,
    });
  }
  return warnings;
}

/** Replaces `${AGENT_HOME}` and `${CWD}` with the engine's paths. */
export function substituteEngineVariables(value: string, variables: { agentHome: string; cwd: string }): string {
  return value.replace(/\$\{AGENT_HOME\}/g, variables.agentHome).replace(/\$\{CWD\}/g, variables.cwd);
}
