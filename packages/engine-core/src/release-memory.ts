import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ModelTurn } from '@delta/model-wire';

/** Texts that add up to this many characters are large enough to collect their garbage at once. */
const LARGE_CHARS = 4 * 1024 * 1024;

let collect: (() => void) | undefined | null;

/** V8's full collection, made callable once without a command-line flag; null where that fails. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  } catch {
    collect = null;
  }
  return collect;
}

function answerChars(turn: ModelTurn): number {
  let chars = turn.content?.length ?? 0;
  for (const call of turn.tool_calls) chars += call.arguments.length;
  return chars + (turn.reasoning?.length ?? 0);
}

/**
 * After a step that handled a large text (reading and recording an answer, running a tool call with large
 * arguments, building a large request), the copies it left behind (the body's text, the journal line, the
 * tool's stdin, the messages' JSON) are collected at once rather than when V8 next sees fit, which may be
 * after the next step has made its own: a 30 MB answer then costs the engine a few copies of itself, not
 * all of them at once (docs/decisions/large-texts-in-memory.md). A full collection takes tens of
 * milliseconds, against seconds of handling such a text.
 */
export function releaseAfterLarge(chars: number): void {
  if (chars < LARGE_CHARS) return;
  collector()?.();
}

export function releaseAfterLargeAnswer(turn: ModelTurn): void {
  releaseAfterLarge(answerChars(turn));
}
