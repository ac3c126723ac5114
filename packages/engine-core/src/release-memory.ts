import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ModelTurn } from '@delta/model-wire';

/** An answer whose texts add up to this many characters is large enough to collect its garbage at once. */
const LARGE_ANSWER_CHARS = 4 * 1024 * 1024;

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
 * After a large answer, the copies its reading and recording left behind (the body's text, the journal
 * line and its bytes) are collected at once rather than when V8 next sees fit, which may be after the
 * next copies are made: a 30 MB answer then costs the engine a few copies of itself, not all of them at
 * once. A full collection takes tens of milliseconds, against seconds of reading such an answer.
 */
export function releaseAfterLargeAnswer(turn: ModelTurn): void {
  if (answerChars(turn) < LARGE_ANSWER_CHARS) return;
  collector()?.();
}
