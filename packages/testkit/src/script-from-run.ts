import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseScript, ScriptFileError } from './parse-script.js';
import type { ScriptStep } from './script-step.js';

interface RecordedCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface RecordedAnswer {
  content: string | null;
  tool_calls: RecordedCall[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

interface RecordedThought {
  llm_invocation_ref: string;
  content: string | null;
  tool_calls: { id: string; name: string; arguments: string }[];
}

/** The THOUGHTs of a journal (one complete JSON object per line; a torn last line is skipped). */
function thoughts(journal: string): RecordedThought[] {
  const found: RecordedThought[] = [];
  for (const line of readFileSync(journal, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let event: { type?: string };
    // Not safeParseJson: a torn line is skipped, not an error.
    try {
      event = JSON.parse(line) as { type?: string };
    } catch {
      continue;
    }
    if (event.type === 'THOUGHT') found.push(event as RecordedThought);
  }
  return found;
}

const STORED_IN_JOURNAL =
  /^<delta: \d+ bytes kept once, in journal\.jsonl: THOUGHT with llm_invocation_ref \S+, (content|tool_calls\[\d+\]\.arguments)>$/;

/** The model's answer as the run recorded it: io/invocations/<ref>/response.json, else the THOUGHT itself. */
function answerOf(runDir: string, thought: RecordedThought): RecordedAnswer {
  const file = join(runDir, 'io', 'invocations', thought.llm_invocation_ref, 'response.json');
  if (existsSync(file)) {
    let parsed: unknown;
    // Not parseJson: every problem of a script's source is a ScriptFileError naming the file.
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ScriptFileError(`${file}: not valid JSON: ${(error as Error).message}`, { file, cause: error });
    }
    const response = parsed as {
      choices?: { message?: { content?: string | null; tool_calls?: RecordedCall[] } }[];
      usage?: { prompt_tokens: number; completion_tokens: number };
    };
    const message = response.choices?.[0]?.message;
    // A large text the run kept once, in the THOUGHT, is a marker in response.json (docs/models.md).
    const stored = (value: unknown) => typeof value === 'string' && STORED_IN_JOURNAL.test(value);
    return {
      content: stored(message?.content) ? thought.content : (message?.content ?? null),
      tool_calls: (message?.tool_calls ?? []).map((call, index) =>
        stored(call.function?.arguments) && thought.tool_calls[index]
          ? { ...call, function: { ...call.function, arguments: thought.tool_calls[index]!.arguments } }
          : call,
      ),
      ...(response.usage ? { usage: response.usage } : {}),
    };
  }
  return {
    content: thought.content,
    tool_calls: thought.tool_calls.map((call) => ({ id: call.id, function: { name: call.name, arguments: call.arguments } })),
  };
}

/**
 * A script that answers as a recorded run's model did, in order: each model call's text and tool calls
 * (with their ids and argument text as sent) and its token counts. `runDir` is `<workspace>/.delta/<run_id>`.
 */
export function scriptFromRun(runDir: string): ScriptStep[] {
  const journal = join(runDir, 'journal.jsonl');
  if (!existsSync(journal)) {
    throw new ScriptFileError(`${runDir}: not a run directory (there is no journal.jsonl); give <workspace>/.delta/<run_id>`, {
      file: journal,
    });
  }
  const steps = thoughts(journal).map((thought) => {
    const answer = answerOf(runDir, thought);
    const calls = answer.tool_calls.map((call) => ({
      ...(call.id ? { id: call.id } : {}),
      name: call.function?.name ?? 'unknown',
      raw_arguments: call.function?.arguments ?? '',
    }));
    return {
      content: answer.content ?? (calls.length > 0 ? null : ''),
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
      ...(answer.usage ? { usage: { prompt_tokens: answer.usage.prompt_tokens, completion_tokens: answer.usage.completion_tokens } } : {}),
    };
  });
  return parseScript(steps, journal);
}
