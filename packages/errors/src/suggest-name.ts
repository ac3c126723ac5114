/**
 * The known name a misspelled one was most likely meant to be (`temprature` -> `temperature`,
 * `timout_ms` -> `timeout_ms`, `modle` -> `model`), or undefined when none is close.
 *
 * Close means: the same apart from case, `-` and `_`; or within an edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours) of 1 for names of 4 to 7 characters and 2 from 8 on.
 * Names of 3 characters or fewer only match apart from case and separators: `n` is not a typo of `m`.
 * On a tie the first known name wins.
 */
export function suggestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  const limit = wanted.length <= 3 ? 0 : wanted.length <= 7 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    if (candidate === name) return undefined;
    const distance = separatorsOnly(wanted, candidate.toLowerCase()) ? 0 : editDistance(wanted, candidate.toLowerCase(), limit);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function separatorsOnly(left: string, right: string): boolean {
  const strip = (text: string) => text.replace(/[-_]/g, '');
  return strip(left) === strip(right);
}

/** Optimal string alignment distance, giving up (limit + 1) once it cannot stay within `limit`. */
function editDistance(left: string, right: string, limit: number): number {
  if (Math.abs(left.length - right.length) > limit) return limit + 1;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    let smallest = row;
    for (let column = 1; column <= right.length; column += 1) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      let value = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + cost);
      if (row > 1 && column > 1 && left[row - 1] === right[column - 2] && left[row - 2] === right[column - 1]) {
        value = Math.min(value, beforePrevious[column - 2]! + 1);
      }
      current.push(value);
      smallest = Math.min(smallest, value);
    }
    if (smallest > limit) return limit + 1;
    beforePrevious = previous;
    previous = current;
  }
  return previous[right.length]!;
}
