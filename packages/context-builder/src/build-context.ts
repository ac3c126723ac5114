import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError, SystemError } from '@delta/errors';
import { formatCapturedOutput, runCommand } from '@delta/command-runner';
import type { JournalEvent } from '@delta/journal';
import { journalToMessages } from './journal-messages.js';
import { substituteEngineVariables, type ComputedFileSource, type ContextManifest, type ContextSource } from './manifest.js';
import type { ChatMessage } from './messages.js';

export interface BuildContextOptions {
  manifest: ContextManifest;
  /** The file the manifest came from, for error messages. */
  manifestFile: string;
  agentHome: string;
  /** The workspace: `${CWD}` and the working directory of generators. */
  cwd: string;
  runId: string;
  journalPath: string;
  /** The journal's events, already read (the engine reads the journal once per iteration). */
  events: readonly JournalEvent[];
  /** The environment generators run with (the engine leaves out model credentials). */
  env: Record<string, string>;
  /** Where each generator run is recorded: command.txt, stdout.log, stderr.log, exit_code.txt, duration_ms.txt. */
  recordDirectory?: (sourceIndex: number, source: ComputedFileSource) => string;
  signal?: AbortSignal;
}

function blockId(source: ContextSource, index: number): string {
  return source.id ?? `${source.type}_${index}`;
}

function contextBlock(id: string, content: string): ChatMessage {
  return { role: 'system', content: `# Context Block: ${id}\n\n${content}` };
}

async function runGenerator(
  source: ComputedFileSource,
  index: number,
  options: BuildContextOptions,
  variables: { agentHome: string; cwd: string },
): Promise<void> {
  const [file, ...args] = source.generator.command.map((part) => substituteEngineVariables(part, variables));
  const record = options.recordDirectory?.(index, source);
  if (record) {
    mkdirSync(record, { recursive: true });
    writeFileSync(join(record, 'command.txt'), `${JSON.stringify([file, ...args])}\n`);
  }
  const result = await runCommand({
    file: file!,
    args,
    cwd: options.cwd,
    env: {
      ...options.env,
      DELTA_RUN_ID: options.runId,
      DELTA_AGENT_HOME: options.agentHome,
      DELTA_CWD: options.cwd,
      JOURNAL_PATH: options.journalPath,
    },
    timeoutMs: source.generator.timeout_ms,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(record ? { stdoutFile: join(record, 'stdout.log'), stderrFile: join(record, 'stderr.log') } : {}),
  });
  if (record) {
    writeFileSync(join(record, 'exit_code.txt'), `${result.exitCode ?? ''}\n`);
    writeFileSync(join(record, 'duration_ms.txt'), `${Math.round(result.durationMs)}\n`);
  }
  if (result.exitCode === 0) return;
  const id = blockId(source, index);
  const why = result.startError
    ? result.startError
    : result.timedOut
      ? `timed out after ${source.generator.timeout_ms} ms`
      : `exited with ${result.exitCode ?? result.signal}`;
  const stderr = formatCapturedOutput(result.stderr).trim();
  throw new SystemError(
    `context source "${id}" (computed_file): the generator ${why}${stderr ? `\nstderr:\n${stderr}` : ''}`,
    {
      code: 'CONTEXT_GENERATOR_FAILED',
      file: options.manifestFile,
      field: `sources[${index}].generator`,
      hint: `Run the generator by hand in ${options.cwd} to see why, or set on_missing: skip to go on without it.`,
    },
  );
}

/**
 * Builds the messages the model sees: each source in order, `file` and `computed_file` as system
 * messages headed `# Context Block: <id>`, `journal` as the native conversation.
 */
export async function buildContextMessages(options: BuildContextOptions): Promise<ChatMessage[]> {
  const variables = { agentHome: options.agentHome, cwd: options.cwd };
  const messages: ChatMessage[] = [];
  for (const [index, source] of options.manifest.sources.entries()) {
    const id = blockId(source, index);
    if (source.type === 'journal') {
      messages.push(
        ...journalToMessages(options.events, source.max_iterations === undefined ? {} : { maxIterations: source.max_iterations }),
      );
      continue;
    }
    if (source.type === 'computed_file') {
      try {
        await runGenerator(source, index, options, variables);
      } catch (error) {
        if (source.on_missing === 'skip') continue;
        throw error;
      }
    }
    const path = substituteEngineVariables(source.type === 'file' ? source.path : source.output_path, variables);
    if (!existsSync(path)) {
      if (source.on_missing === 'skip') continue;
      throw new ConfigurationError(`context source "${id}" (${source.type}): ${path} does not exist`, {
        code: 'CONTEXT_SOURCE_MISSING',
        file: options.manifestFile,
        field: `sources[${index}].${source.type === 'file' ? 'path' : 'output_path'}`,
        hint:
          source.type === 'file'
            ? 'Create the file, fix the path, or add `on_missing: skip` to the source.'
            : 'The generator must write its output to output_path (creating its directory); or add `on_missing: skip`.',
      });
    }
    messages.push(contextBlock(id, readFileSync(path, 'utf8')));
  }
  return messages;
}
