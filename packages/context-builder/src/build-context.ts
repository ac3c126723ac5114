import type { CommandLauncher } from '@delta/command-runner';
import { ConfigurationError } from '@delta/errors';
import type { RunState } from '@delta/journal';
import { fitBlock } from './fit-block.js';
import type { ComputedFileSource, ContextManifest, FileSource } from './manifest.js';
import type { ChatMessage, ContextMessages } from './messages.js';
import { readComputedSource } from './sources/computed-source.js';
import { readSourceFile } from './sources/file-source.js';
import { journalSourceMessages } from './sources/journal-source.js';
import { blockHeader, sourceId, type SourceContext } from './sources/source-context.js';
import { estimateTokens, messagesTokens, messageTokens, type CountTokens } from './token-count.js';

export interface BuildContextOptions {
  manifest: ContextManifest;
  /** The file the manifest came from, for error messages. */
  manifestFile: string;
  agentHome: string;
  /** The workspace: `${CWD}` and the working directory of generators. */
  cwd: string;
  runId: string;
  journalPath: string;
  /** The run's state (the fold of its journal), from which `journal` sources take the conversation. */
  state: RunState;
  /** The environment generators run with (the engine leaves out model credentials). */
  env: Record<string, string>;
  /** Where each generator run is recorded: command.txt, stdout.log, stderr.log, exit_code.txt, duration_ms.txt. */
  recordDirectory?: (sourceIndex: number, source: ComputedFileSource) => string;
  signal?: AbortSignal;
  /** Counts tokens for the budgets; `estimateTokens` (a documented estimate) by default. */
  countTokens?: CountTokens;
  /** Tokens of the request outside the messages (tool definitions), taken from total_max_tokens first. */
  reservedTokens?: number;
  /** Starts generators (see CommandLauncher); without it they are started by forking this process. */
  launcher?: CommandLauncher;
  /** Told when a context file is left out (not a regular file, a link out of the workspace, too large), naming it and why. */
  onNotice?: (message: string) => void;
}

/** How much of total_max_tokens is left, and how to say so in markers and errors. */
interface Budget {
  total: number | undefined;
  remaining: number;
}

/** The limit for one source: its own max_tokens or what remains of the total, whichever is smaller. */
function limitFor(maxTokens: number | undefined, budget: Budget): { tokens: number; describe: string } | undefined {
  if (maxTokens === undefined && budget.total === undefined) return undefined;
  if (maxTokens !== undefined && maxTokens <= budget.remaining) return { tokens: maxTokens, describe: `max_tokens ${maxTokens}` };
  return {
    tokens: Math.max(0, budget.remaining),
    describe: `total_max_tokens ${budget.total} leaves ${Math.max(0, budget.remaining)} tokens for it`,
  };
}

async function blockText(source: FileSource | ComputedFileSource, index: number, options: BuildContextOptions, context: SourceContext) {
  if (source.type === 'file') return readSourceFile(source, index, context);
  const recordDirectory = options.recordDirectory?.(index, source);
  return readComputedSource(source, index, {
    ...context,
    runId: options.runId,
    journalPath: options.journalPath,
    env: options.env,
    ...(recordDirectory ? { recordDirectory } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.launcher ? { launcher: options.launcher } : {}),
  });
}

/** One file or computed_file block within its limit; a block with no max_tokens must fit whole. */
function fittedBlock(
  source: FileSource | ComputedFileSource,
  index: number,
  text: { path: string; text: string },
  budget: Budget,
  context: SourceContext,
): ChatMessage {
  const id = sourceId(source, index);
  const header = blockHeader(id);
  const whole: ChatMessage = { role: 'system', content: header + text.text };
  const limit = limitFor(source.max_tokens, budget);
  if (limit === undefined) return whole;
  const tokens = messageTokens(whole, context.countTokens);
  if (tokens <= limit.tokens) return whole;
  const fix = `Raise total_max_tokens, shorten ${text.path}, or give sources[${index}] a smaller max_tokens.`;
  if (source.max_tokens === undefined) {
    throw new ConfigurationError(
      `context source "${id}" (${source.type}) is about ${tokens} tokens, but ${limit.describe} ` +
        `and a source without max_tokens must be included whole`,
      {
        code: 'CONTEXT_BUDGET_EXCEEDED',
        file: context.manifestFile,
        field: 'total_max_tokens',
        hint: `Raise total_max_tokens, shorten ${text.path}, or give sources[${index}] a max_tokens so that it may be cut.`,
      },
    );
  }
  const cut = fitBlock({
    header,
    text: text.text,
    path: text.path,
    limit: limit.tokens,
    limitName: limit.describe,
    countTokens: context.countTokens,
  });
  if (cut) return cut;
  throw new ConfigurationError(
    `context source "${id}" (${source.type}): ${limit.describe}, too few to hold even its header and the cut marker`,
    { code: 'CONTEXT_BUDGET_EXCEEDED', file: context.manifestFile, field: `sources[${index}].max_tokens`, hint: fix },
  );
}

/**
 * Builds the messages the model sees: each source in order, `file` and `computed_file` as system
 * messages headed `# Context Block: <id>`, `journal` as the native conversation.
 *
 * Budgets: the fixed sources (file, computed_file) are counted first, in order, each within its own
 * max_tokens and what remains of total_max_tokens; the journal sources then get what is left.
 */
export async function buildContextMessages(options: BuildContextOptions): Promise<ChatMessage[]> {
  return (await buildContext(options)).messages;
}

/** As buildContextMessages, with the JSON text of each message (the conversation's own, from the run's state). */
export async function buildContext(options: BuildContextOptions): Promise<ContextMessages> {
  const context: SourceContext = {
    manifestFile: options.manifestFile,
    agentHome: options.agentHome,
    cwd: options.cwd,
    countTokens: options.countTokens ?? estimateTokens,
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  };
  const total = options.manifest.total_max_tokens;
  const budget: Budget = { total, remaining: total === undefined ? Number.POSITIVE_INFINITY : total - (options.reservedTokens ?? 0) };
  const parts: ContextMessages[] = options.manifest.sources.map(() => ({ messages: [], json: [] }));

  for (const [index, source] of options.manifest.sources.entries()) {
    if (source.type === 'journal') continue;
    const text = await blockText(source, index, options, context);
    if (text === undefined) continue;
    const block = fittedBlock(source, index, text, budget, context);
    // Without total_max_tokens nothing is counted: the conversation is not walked twice per iteration.
    if (total !== undefined) budget.remaining -= messageTokens(block, context.countTokens);
    parts[index] = { messages: [block], json: [JSON.stringify(block)] };
  }
  for (const [index, source] of options.manifest.sources.entries()) {
    if (source.type !== 'journal') continue;
    const part = journalSourceMessages(source, index, limitFor(source.max_tokens, budget), {
      ...context,
      state: options.state,
      journalPath: options.journalPath,
    });
    if (total !== undefined) budget.remaining -= messagesTokens(part.messages, context.countTokens);
    parts[index] = part;
  }
  // concat copies natively; flat() is several times slower on the long conversation part.
  const messages = ([] as ChatMessage[]).concat(...parts.map((part) => part.messages));
  const json = ([] as Array<string | undefined>).concat(...parts.map((part) => part.json));
  return { messages, json };
}
